import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Schema, Scope } from "effect"
import { ResilienceSettings } from "../../../src/Domain/ResilienceSettings.ts"
import { memoryWindowStore, redisWindowStore, type WindowStore } from "../../../src/Services/RateLimits/WindowStore.ts"
import { connectRedis } from "../../../src/Services/Routing/RedisConnection.ts"

const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"
const scope = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** A peek decides exactly as `acquire` would, and charges nothing. */
const peekSuite = (name: string, makeStore: () => Promise<WindowStore>) =>
  it(`${name}: a peek answers like acquire without charging`, async () => {
    const store = await makeStore()
    const id = `k:peek-${Math.random().toString(36).slice(2)}:r`
    const charge = [{ id, limit: 2, weight: 1 }]
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
    for (let i = 0; i < 3; i++) expect((await run(store.peek(charge))).admitted).toBe(true)
    expect((await run(store.acquire(charge, "t1"))).admitted).toBe(true)
    const one = await run(store.peek(charge))
    expect(one).toMatchObject({ admitted: true, states: [{ id, limit: 2, remaining: 1 }] })
    expect((await run(store.acquire(charge, "t2"))).admitted).toBe(true)
    const full = await run(store.peek(charge))
    expect(full.admitted).toBe(false)
    expect(full.admitted === false && full.retryAfterMs).toBeGreaterThan(55_000)
    expect((await run(store.acquire(charge, "t3"))).admitted).toBe(false)
  })

describe("rate-limit window stores", () => {
  peekSuite("memory", async () => memoryWindowStore())
  peekSuite("Redis", async () => {
    const resilience = Schema.decodeUnknownSync(ResilienceSettings)({})
    const client = await Effect.runPromise(connectRedis(Redacted.make(redisUrl), resilience).pipe(Scope.provide(scope)))
    return redisWindowStore(client, `gateway-test-peek-${process.pid}:`)
  })
})
