import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { SqlClient } from "effect/sql"
import { leasedWindowStore } from "../../../src/Services/RateLimits/LeasedWindowStore.ts"
import { postgresWindowSource } from "../../../src/Services/RateLimits/PostgresWindowStore.ts"
import { sharedPostgres } from "../../support/SharedPostgres.ts"
import type { TestStorage } from "../../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../../support/TestGateway.ts"
import { admittedAcross, WindowLoad } from "../../support/WindowShares.ts"

/**
 * Two instances on one Postgres, each taking shares of the same window: within one minute the
 * weight admitted over both never exceeds the limit, and the database counts at least all of it.
 */
describe("rate-limit windows leased per instance on one Postgres", () => {
  let storage: TestStorage
  let one: TestGateway
  let two: TestGateway
  beforeAll(async () => {
    storage = await sharedPostgres()
    one = await startGateway({ storage })
    two = await startGateway({ storage })
  }, 60_000)
  afterAll(async () => {
    await one?.stop()
    await two?.stop()
    await storage?.cleanup()
  })

  const sqlOf = (gw: TestGateway) => gw.runtime.runPromise(Effect.service(SqlClient.SqlClient))
  let windows = 0

  it.effect.prop(
    "the weight admitted from both instances' shares fits the limit, and the database holds at least that much",
    WindowLoad,
    ({ limit, weights }) => Effect.promise(async () => {
      const id = `w${windows++}-${Date.now()}`
      const stores = [leasedWindowStore(postgresWindowSource(await sqlOf(one)), "one", 60_000), leasedWindowStore(postgresWindowSource(await sqlOf(two)), "two", 60_000)]
      const admitted = await admittedAcross(stores, id, limit, weights)
      const sql = await sqlOf(one)
      const [row] = await one.runtime.runPromise(sql<{ total: string; entries: string }>`SELECT coalesce(sum(weight), 0)::text AS total,
          count(*)::text AS entries FROM rate_window_entries WHERE window_id = ${id}`)
      expect(Number(row!.total)).toBeGreaterThanOrEqual(admitted)
      expect(Number(row!.total)).toBeLessThanOrEqual(limit)
    }),
    { arbitrary: { runs: 10 }, timeout: 60_000 }
  )

  it.effect("a share's unused weight is handed back once its span is over, and its entry still counts what was used", () =>
    Effect.gen(function* () {
      const sql = yield* Effect.promise(() => sqlOf(one))
      const id = `give-back-${Date.now()}`
      const store = leasedWindowStore(postgresWindowSource(sql), "give-back", 1_000)
      const charge = { id, limit: 1_000, weight: 1 }
      // Enough requests in one second for the next share to be sized from them.
      for (let i = 0; i < 20; i++) expect((yield* store.acquire([charge], `g${i}`)).admitted).toBe(true)
      const entries = () => sql<{ weight: string }>`SELECT weight::text AS weight FROM rate_window_entries WHERE window_id = ${id} ORDER BY at_ms`
      const taken = (yield* entries()).reduce((total, e) => total + Number(e.weight), 0)
      expect(taken).toBeGreaterThan(20)
      yield* TestClock.adjust(1_001)
      yield* store.sweep!
      const after = (yield* entries()).reduce((total, e) => total + Number(e.weight), 0)
      expect(after).toBe(20)
    }))

  it("a busy window is served from shares: far fewer database entries than requests, exactly the limit admitted", async () => {
    const id = `busy-${Date.now()}`
    const stores = [leasedWindowStore(postgresWindowSource(await sqlOf(one)), "one", 60_000), leasedWindowStore(postgresWindowSource(await sqlOf(two)), "two", 60_000)]
    const run = (from: number, count: number) =>
      one.runtime.runPromise(Effect.all(Array.from({ length: count }, (_, i) => stores[(from + i) % 2]!.acquire([{ id, limit: 1_000, weight: 1 }], `b${from + i}`)), { concurrency: 8 }))
    // The first requests tell each instance how busy the window is; the next ones take shares sized from it.
    const first = await run(0, 400)
    const then = await run(400, 1_200)
    const admitted = [...first, ...then].filter((d) => d.admitted).length
    expect(admitted).toBeLessThanOrEqual(1_000)
    expect(admitted).toBeGreaterThanOrEqual(900)
    const sql = await sqlOf(one)
    const [row] = await one.runtime.runPromise(sql<{ entries: string }>`SELECT count(*)::text AS entries FROM rate_window_entries WHERE window_id = ${id}`)
    expect(Number(row!.entries)).toBeLessThan(admitted / 4)
  })
})
