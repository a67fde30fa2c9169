import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeUsageWriter } from "../../../src/Services/Usage/UsageWriter.ts"
import { usageEvent } from "../../support/UsageEvents.ts"
import { useGateway } from "../../support/UseGateway.ts"

/**
 * A batch is inserted without a conflict check per row, and written again skipping what is there
 * only when the database reports a request id already written. So a batch written twice, or one
 * that mixes rows already written with new ones, leaves every request exactly once with its
 * figures, on either storage.
 */
describe("usage writer", () => {
  const gw = useGateway({ key: false })

  it("writes a batch that meets rows already written: every request once, the new ones included", async () => {
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const now = Date.now()
        const prefix = `req_writer_${now}_`
        const events = [1, 2, 3, 4, 5].map((i) => usageEvent({ requestId: `${prefix}${i}`, occurredAt: now, promptTokens: i, costNanoUsd: 100 * i }))
        const writer = makeUsageWriter(sql)
        yield* writer.insert(events.slice(0, 3))
        yield* writer.insert(events.slice(1))
        yield* writer.insert(events)
        return yield* sql<{ request_id: string; prompt_tokens: number; cost: string }>`SELECT request_id, prompt_tokens, cost_nano_usd::text AS cost
          FROM usage_events WHERE request_id LIKE ${`${prefix}%`} ORDER BY request_id`
      })
    )
    expect(rows.map((r) => [r.request_id.slice(-1), r.prompt_tokens, r.cost])).toEqual([
      ["1", 1, "100"],
      ["2", 2, "200"],
      ["3", 3, "300"],
      ["4", 4, "400"],
      ["5", 5, "500"]
    ])
  })

  it("writes a batch that repeats a request id within itself once", async () => {
    const count = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const now = Date.now()
        const id = `req_writer_repeat_${now}`
        const writer = makeUsageWriter(sql)
        yield* writer.insert([usageEvent({ requestId: id, occurredAt: now }), usageEvent({ requestId: id, occurredAt: now })])
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM usage_events WHERE request_id = ${id}`
        return row!.n
      })
    )
    expect(count).toBe(1)
  })
})
