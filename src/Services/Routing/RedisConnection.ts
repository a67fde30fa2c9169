import { createHash } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { ResilienceSettings } from "../../Domain/ResilienceSettings.ts"

/** The commands the gateway uses, and the connection's life. */
export interface RedisClient {
  readonly isOpen: boolean
  readonly isReady: boolean
  hGetAll(key: string): Promise<Record<string, string>>
  hDel(key: string, field: string): Promise<number>
  eval(script: string, options: ScriptArguments): Promise<unknown>
  evalSha(sha1: string, options: ScriptArguments): Promise<unknown>
  connect(): Promise<unknown>
  close(): Promise<unknown>
  destroy(): void
  on(event: "error", listener: (error: unknown) => void): unknown
}

export interface ScriptArguments {
  readonly keys: Array<string>
  readonly arguments: Array<string>
}

/**
 * A Lua script run by its SHA1 (EVALSHA), so that its text (a kilobyte or two, sent and hashed on
 * every EVAL) crosses the wire only when Redis lacks it: on first use, after a restart or a
 * SCRIPT FLUSH, Redis answers NOSCRIPT and the script is sent whole once (EVAL, which also
 * caches it). NOSCRIPT is the reply's error code, its first word by the protocol.
 */
export const redisScript = (source: string) => {
  const sha1 = createHash("sha1").update(source).digest("hex")
  return (client: RedisClient, options: ScriptArguments): Promise<unknown> =>
    client.evalSha(sha1, options).catch((error: unknown) =>
      error instanceof Error && error.message.startsWith("NOSCRIPT") ? client.eval(source, options) : Promise.reject(error)
    )
}

export class RedisStartError extends Data.TaggedError("RedisStartError")<{ readonly message: string }> {}

/** `redis://host:port` without credentials, for messages. */
export const redisUrlForDisplay = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return "<unparsable REDIS_URL>"
  }
}

/**
 * A Redis client for the life of the scope. Start-up waits at most
 * `resilience.redis_startup_wait_seconds` for the first connection, interruptibly (SIGTERM
 * stops the wait and the client); then either fails with one line (`redis_unavailable: exit`)
 * or hands back a client that keeps connecting in the background (`local`, logged). Commands
 * are refused at once while the client is offline instead of queueing without bound, so a
 * caller never waits on a Redis that is away.
 */
export const connectRedis = (
  url: Redacted.Redacted<string>,
  settings: ResilienceSettings
): Effect.Effect<RedisClient, RedisStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const where = redisUrlForDisplay(url)
    // Loaded only when Redis is configured: the client is tens of megabytes of every process.
    const { createClient } = yield* Effect.promise(() => import("redis"))
    const client = yield* Effect.try({
      try: (): RedisClient =>
        createClient({
          url: Redacted.value(url),
          disableOfflineQueue: true,
          commandsQueueMaxLength: 1_000,
          socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) }
        }),
      catch: (cause) => new RedisStartError({ message: `REDIS_URL cannot be used: ${cause instanceof Error ? cause.message : String(cause)}` })
    })
    // Failures are reported by the callers (the health sync logs an outage once).
    client.on("error", () => {})
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => (client.isReady ? client.close() : Promise.resolve(client.destroy()))).pipe(
        Effect.timeout("2 seconds"),
        Effect.ignore,
        Effect.andThen(Effect.sync(() => client.isOpen && client.destroy()))
      )
    )
    // `connect` retries by itself until it connects or the client is destroyed.
    const connecting = client.connect()
    connecting.catch(() => undefined)
    const waitMs = settings.redis_startup_wait_seconds * 1000
    const ready = yield* Effect.callback<boolean>((resume) => {
      const timer = setTimeout(() => resume(Effect.succeed(false)), waitMs)
      connecting.then(
        () => {
          clearTimeout(timer)
          resume(Effect.succeed(true))
        },
        () => undefined
      )
      return Effect.sync(() => clearTimeout(timer))
    })
    if (ready) return client
    const waited = `did not answer within ${settings.redis_startup_wait_seconds} s`
    if (settings.redis_unavailable === "exit") {
      return yield* new RedisStartError({ message: `Redis at ${where} ${waited} (resilience.redis_unavailable: exit)` })
    }
    yield* Effect.logWarning(`Redis at ${where} ${waited}; circuit-breaker state stays in this process until it answers`)
    return client
  })
