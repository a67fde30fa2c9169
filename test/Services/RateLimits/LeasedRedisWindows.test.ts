import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Schema, Scope } from "effect"
import { TestClock } from "effect/testing"
import { ResilienceSettings } from "../../../src/Domain/ResilienceSettings.ts"
import { leasedWindowStore } from "../../../src/Services/RateLimits/LeasedWindowStore.ts"
import { redisWindowSource } from "../../../src/Services/RateLimits/WindowStore.ts"
import { connectRedis, type RedisClient } from "../../../src/Services/Routing/RedisConnection.ts"
import { admittedAcross, WindowLoad } from "../../support/WindowShares.ts"

const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"
const scope = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
const prefix = `gateway-test-leased-${process.pid}-${Date.now()}:`
let client: RedisClient | undefined
const redis = async (): Promise<RedisClient> => {
  client ??= await Effect.runPromise(connectRedis(Redacted.make(redisUrl), Schema.decodeUnknownSync(ResilienceSettings)({})).pipe(Scope.provide(scope)))
  return client
}

/** The window's entries in Redis: their count and the sum of their weights (`ticket:weight` members). */
const entriesOf = async (id: string) => {
  const members = (await (await redis()).eval("return redis.call('ZRANGE', KEYS[1], 0, -1)", { keys: [`${prefix}rl:${id}:log`], arguments: [] })) as Array<string>
  const total = Number(await (await redis()).eval("return redis.call('GET', KEYS[1])", { keys: [`${prefix}rl:${id}:total`], arguments: [] }) ?? 0)
  return { count: members.length, weight: members.reduce((sum, m) => sum + Number(m.slice(m.lastIndexOf(":") + 1)), 0), total }
}

/**
 * Two instances on one Redis, each taking shares of the same window with one script call and
 * admitting from them locally: within one minute the weight admitted over both never exceeds the
 * limit, and Redis counts at least all of it.
 */
describe("rate-limit windows leased per instance on one Redis", () => {
  let windows = 0

  it.effect.prop(
    "the weight admitted from both instances' shares fits the limit, and Redis holds at least that much",
    WindowLoad,
    ({ limit, weights }) => Effect.promise(async () => {
      const id = `w${windows++}`
      const source = redisWindowSource(await redis(), prefix)
      const admitted = await admittedAcross([leasedWindowStore(source, "one", 60_000), leasedWindowStore(source, "two", 60_000)], id, limit, weights)
      const entries = await entriesOf(id)
      expect(entries.total).toBe(entries.weight)
      expect(entries.total).toBeGreaterThanOrEqual(admitted)
      expect(entries.total).toBeLessThanOrEqual(limit)
    }),
    { arbitrary: { runs: 10 }, timeout: 60_000 }
  )

  it("a busy window is served from shares: far fewer script calls' entries than requests, about the limit admitted", async () => {
    const id = `busy`
    const source = redisWindowSource(await redis(), prefix)
    const stores = [leasedWindowStore(source, "one", 60_000), leasedWindowStore(source, "two", 60_000)]
    const run = (from: number, count: number) =>
      Effect.runPromise(Effect.all(Array.from({ length: count }, (_, i) => stores[(from + i) % 2]!.acquire([{ id, limit: 1_000, weight: 1 }], `b${from + i}`)), { concurrency: 8 }))
    // The first requests tell each instance how busy the window is; the next ones take shares sized from it.
    const first = await run(0, 400)
    const then = await run(400, 1_200)
    const admitted = [...first, ...then].filter((d) => d.admitted).length
    expect(admitted).toBeLessThanOrEqual(1_000)
    expect(admitted).toBeGreaterThanOrEqual(900)
    const entries = await entriesOf(id)
    expect(entries.count).toBeLessThan(admitted / 4)
    expect(entries.total).toBeLessThanOrEqual(1_000)
  })

  it.effect("a share's unused weight is handed back once its span is over, and a correction lands on the share", () =>
    Effect.gen(function* () {
      const id = `give-back`
      const store = leasedWindowStore(redisWindowSource(yield* Effect.promise(redis), prefix), "give-back", 1_000)
      const charge = { id, limit: 10_000, weight: 10 }
      // Enough requests in one second for the next share to be sized from them.
      for (let i = 0; i < 20; i++) expect((yield* store.acquire([charge], `g${i}`)).admitted).toBe(true)
      const taken = yield* Effect.promise(() => entriesOf(id))
      expect(taken.total).toBeGreaterThan(200)
      // Two requests used 4 tokens of the 10 they were charged.
      yield* store.adjust("g18", [{ id, from: 10, to: 4 }])
      yield* store.adjust("g19", [{ id, from: 10, to: 4 }])
      yield* TestClock.adjust(1_001)
      yield* store.sweep!
      const after = yield* Effect.promise(() => entriesOf(id))
      expect(after.total).toBe(200 - 12)
      expect(after.weight).toBe(after.total)
    }))

  it.effect("corrections that cross after a share's span each land: the entry ends at what was used", () =>
    Effect.gen(function* () {
      const id = `crossing`
      const store = leasedWindowStore(redisWindowSource(yield* Effect.promise(redis), prefix), "crossing", 1_000)
      const charge = { id, limit: 10_000, weight: 10 }
      for (let i = 0; i < 20; i++) expect((yield* store.acquire([charge], `c${i}`)).admitted).toBe(true)
      yield* TestClock.adjust(1_001)
      // The share no longer admits: each correction writes its entry, these three at once.
      yield* Effect.all([
        store.adjust("c17", [{ id, from: 10, to: 4 }]),
        store.adjust("c18", [{ id, from: 10, to: 4 }]),
        store.adjust("c19", [{ id, from: 10, to: 13 }])
      ], { concurrency: "unbounded" })
      yield* store.sweep!
      const after = yield* Effect.promise(() => entriesOf(id))
      expect(after.total).toBe(200 - 6 - 6 + 3)
      expect(after.weight).toBe(after.total)
    }))
})
