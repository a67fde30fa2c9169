import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as SqlClient from "effect/sql/SqlClient"
import type { RoutingSettings } from "../../Domain/GatewayConfig.ts"

/** Where the circuit breaker keeps its counts: in process, in Postgres or in Redis. */
export interface HealthStore {
  /** Unix ms until which the deployment is cooling down, or 0. */
  readonly openUntil: (key: string) => Effect.Effect<number>
  readonly recordSuccess: (key: string) => Effect.Effect<void>
  readonly recordFailure: (key: string, options: { readonly now: number; readonly retryAfterMs?: number | undefined }) => Effect.Effect<void>
}

export const memoryHealthStore = (routing: RoutingSettings): HealthStore => {
  const state = new Map<string, { failures: number; openUntil: number }>()
  return {
    openUntil: (key) => Effect.sync(() => state.get(key)?.openUntil ?? 0),
    recordSuccess: (key) =>
      Effect.sync(() => {
        state.delete(key)
      }),
    recordFailure: (key, { now, retryAfterMs }) =>
      Effect.sync(() => {
        const entry = state.get(key) ?? { failures: 0, openUntil: 0 }
        entry.failures++
        if (entry.failures >= routing.failure_threshold) {
          entry.openUntil = Math.max(entry.openUntil, now + routing.cooldown_seconds * 1000)
        }
        if (retryAfterMs !== undefined) entry.openUntil = Math.max(entry.openUntil, now + retryAfterMs)
        state.set(key, entry)
      })
  }
}

/**
 * Shared circuit-breaker stores. Reads come from a snapshot refreshed at most once a second,
 * so routing a request costs a map lookup; writes go straight to the shared store, and a
 * success only writes when the deployment had failures, so healthy traffic writes nothing.
 */
const snapshotTtlMs = 1000

interface Snapshot {
  readonly openUntil: Map<string, number>
  readonly failing: Set<string>
  readonly at: number
}

const cached = (load: Effect.Effect<Omit<Snapshot, "at">>) => {
  let snapshot: Snapshot | undefined
  const current = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    if (snapshot === undefined || now - snapshot.at >= snapshotTtlMs) snapshot = { ...(yield* load), at: now }
    return snapshot
  })
  const invalidate = Effect.sync(() => {
    snapshot = undefined
  })
  return { current, invalidate }
}

export const postgresHealthStore = (sql: SqlClient.SqlClient, settings: RoutingSettings): HealthStore => {
  const { current, invalidate } = cached(
    sql<{ key: string; failures: number; open_until: number | null }>`SELECT key, failures,
        extract(epoch from open_until)::float8 * 1000 AS open_until FROM deployment_health
        WHERE failures > 0 OR open_until > now()`.pipe(
      Effect.map((rows) => ({
        openUntil: new Map(rows.map((r) => [r.key, r.open_until ?? 0])),
        failing: new Set(rows.filter((r) => r.failures > 0).map((r) => r.key))
      })),
      Effect.orDie
    )
  )
  return {
    openUntil: (key) => Effect.map(current, (s) => s.openUntil.get(key) ?? 0),
    recordSuccess: (key) =>
      Effect.gen(function* () {
        if (!(yield* current).failing.has(key)) return
        yield* sql`UPDATE deployment_health SET failures = 0 WHERE key = ${key}`.pipe(Effect.orDie)
        yield* invalidate
      }),
    recordFailure: (key, { now, retryAfterMs }) =>
      Effect.gen(function* () {
        const cooldownUntil = new Date(now + settings.cooldown_seconds * 1000)
        const retryUntil = retryAfterMs === undefined ? null : new Date(now + retryAfterMs)
        yield* sql`INSERT INTO deployment_health (key, failures, open_until)
          VALUES (${key}, 1, ${retryUntil})
          ON CONFLICT (key) DO UPDATE SET
            failures = deployment_health.failures + 1,
            open_until = GREATEST(
              deployment_health.open_until,
              CASE WHEN deployment_health.failures + 1 >= ${settings.failure_threshold} THEN ${cooldownUntil}::timestamptz END,
              ${retryUntil}::timestamptz)`.pipe(Effect.orDie)
        yield* invalidate
      })
  }
}

const recordFailureScript = `
local failures = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local current = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local target = current
if failures >= tonumber(ARGV[2]) then target = math.max(target, tonumber(ARGV[3]) + tonumber(ARGV[4])) end
target = math.max(target, tonumber(ARGV[5]))
if target > current then redis.call('HSET', KEYS[2], ARGV[1], tostring(target)) end
return failures`

/** Two hashes under `prefix`: consecutive failures and open-until (unix ms) per deployment. */
export const redisHealthStore = (url: Redacted.Redacted<string>, settings: RoutingSettings, prefix: string) =>
  Effect.gen(function* () {
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        // Loaded only when Redis is configured: the client is tens of megabytes of every process.
        const { createClient } = await import("redis")
        const c = createClient({ url: Redacted.value(url) })
        c.on("error", () => {})
        await c.connect()
        return c
      }),
      (c) => Effect.promise(() => c.close()).pipe(Effect.ignore)
    )
    const failuresKey = `${prefix}health:failures`
    const openKey = `${prefix}health:open_until`
    const { current, invalidate } = cached(
      Effect.promise(async () => {
        const [open, failures] = await Promise.all([client.hGetAll(openKey), client.hGetAll(failuresKey)])
        return {
          openUntil: new Map(Object.entries(open).map(([k, v]) => [k, Number(v)])),
          failing: new Set(Object.entries(failures).filter(([, v]) => Number(v) > 0).map(([k]) => k))
        }
      })
    )
    const store: HealthStore = {
      openUntil: (key) => Effect.map(current, (s) => s.openUntil.get(key) ?? 0),
      recordSuccess: (key) =>
        Effect.gen(function* () {
          if (!(yield* current).failing.has(key)) return
          yield* Effect.promise(() => client.hDel(failuresKey, key))
          yield* invalidate
        }),
      recordFailure: (key, { now, retryAfterMs }) =>
        Effect.gen(function* () {
          yield* Effect.promise(() =>
            client.eval(recordFailureScript, {
              keys: [failuresKey, openKey],
              arguments: [
                key,
                String(settings.failure_threshold),
                String(now),
                String(settings.cooldown_seconds * 1000),
                String(retryAfterMs === undefined ? 0 : now + retryAfterMs)
              ]
            })
          )
          yield* invalidate
        })
    }
    return store
  })
