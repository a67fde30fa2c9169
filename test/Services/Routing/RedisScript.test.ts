import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Schema, Scope } from "effect"
import { ResilienceSettings } from "../../../src/Domain/ResilienceSettings.ts"
import { connectRedis, type RedisClient, redisScript, type ScriptArguments } from "../../../src/Services/Routing/RedisConnection.ts"

const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"
const scope = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const connect = () =>
  Effect.runPromise(connectRedis(Redacted.make(redisUrl), Schema.decodeUnknownSync(ResilienceSettings)({})).pipe(Scope.provide(scope)))

/** The real client, with every script call recorded by the command it went out as. */
const recording = (client: RedisClient) => {
  const sent: Array<"EVAL" | "EVALSHA"> = []
  const wrapped: RedisClient = Object.assign(Object.create(client) as RedisClient, {
    eval: (script: string, options: ScriptArguments) => {
      sent.push("EVAL")
      return client.eval(script, options)
    },
    evalSha: (sha1: string, options: ScriptArguments) => {
      sent.push("EVALSHA")
      return client.evalSha(sha1, options)
    }
  })
  return { wrapped, sent }
}

describe("Redis scripts by SHA1", () => {
  it("a script Redis lacks is sent whole once (NOSCRIPT), then only by its hash", async () => {
    const client = await connect()
    const { wrapped, sent } = recording(client)
    // A script no other run has loaded: its text carries a fresh nonce.
    const run = redisScript(`return ARGV[1] .. ':${process.pid}-${Math.random().toString(36).slice(2)}'`)
    const first = await run(wrapped, { keys: [], arguments: ["a"] })
    expect(String(first)).toMatch(/^a:/)
    expect(sent).toEqual(["EVALSHA", "EVAL"])
    const second = await run(wrapped, { keys: [], arguments: ["b"] })
    expect(String(second)).toMatch(/^b:/)
    expect(sent).toEqual(["EVALSHA", "EVAL", "EVALSHA"])
  })

  it("a script's own error is the caller's, not a reason to send it again", async () => {
    const client = await connect()
    const { wrapped, sent } = recording(client)
    const run = redisScript(`return redis.error_reply('WINDOWS broken ${process.pid}-${Math.random().toString(36).slice(2)}')`)
    // Loaded first (EVALSHA answers NOSCRIPT, EVAL runs it and fails with the script's error).
    await expect(run(wrapped, { keys: [], arguments: [] })).rejects.toThrow(/WINDOWS broken/)
    sent.length = 0
    await expect(run(wrapped, { keys: [], arguments: [] })).rejects.toThrow(/WINDOWS broken/)
    expect(sent).toEqual(["EVALSHA"])
  })
})
