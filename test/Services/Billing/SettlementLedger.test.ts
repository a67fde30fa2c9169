import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Accounts } from "../../../src/Services/Accounts/Accounts.ts"
import { reconcile } from "../../../src/Services/Billing/BillingReconcile.ts"
import { credit, reserve } from "../../../src/Services/Billing/BillingStore.ts"
import { takeLease } from "../../../src/Services/Billing/LeaseStore.ts"
import { makeUsageWriter } from "../../../src/Services/Usage/UsageWriter.ts"
import { usageEvent } from "../../support/UsageEvents.ts"
import { useGateway } from "../../support/UseGateway.ts"

const figures = (sql: SqlClient.SqlClient, projectId: string) =>
  Effect.map(
    sql<{ balance: string; held: string; settled: string; settlements: string; rows: string }>`SELECT
      (SELECT balance_nano::text FROM billing_accounts WHERE project_id = ${projectId}) AS balance,
      (SELECT count(*)::text FROM reservations WHERE project_id = ${projectId}) AS held,
      (SELECT coalesce(sum(-amount_nano), 0)::text FROM credit_ledger WHERE project_id = ${projectId} AND kind = 'settlement') AS settled,
      (SELECT coalesce(sum(coalesce(requests, 1)), 0)::text FROM credit_ledger WHERE project_id = ${projectId} AND kind = 'settlement') AS settlements,
      (SELECT count(*)::text FROM credit_ledger WHERE project_id = ${projectId} AND kind = 'settlement') AS rows`,
    (rows) => rows[0]!
  )

/**
 * The settlement rides with the usage row: written in the same transaction, only for a row the
 * statement inserted. So a batch written twice (a retry after a commit whose answer was lost,
 * a spill file replayed) settles once, and reconciliation closes what no settlement reached.
 */
describe("settlement with the usage ledger", () => {
  const gw = useGateway({ key: false })

  it("a billed batch written twice settles once: credit ledger = usage ledger = balance drop, no hold left", async () => {
    const result = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const project = yield* (yield* Accounts).createProject("twice")
        yield* credit(sql, { projectId: project.id, amount: 1_000_000n, kind: "grant", note: null, requestId: null })
        const now = Date.now()
        const ids = [1, 2, 3].map((i) => `${project.id}-req-${i}`)
        for (const id of ids) yield* reserve(sql, { projectId: project.id, keyId: "k1", reservationId: id, amount: 200_000n, ttlMs: 60_000, now })
        const batch = ids.map((id, i) =>
          usageEvent({ requestId: id, occurredAt: now, costNanoUsd: 1_000 * (i + 1), settlement: { projectId: project.id, keyId: "k1" } }))
        const writer = makeUsageWriter(sql)
        yield* writer.insert(batch)
        yield* writer.insert(batch)
        yield* writer.insert(batch.slice(1))
        const [usage] = yield* sql<{ total: string }>`SELECT sum(cost_nano_usd)::text AS total FROM usage_events WHERE request_id IN ${sql.in(ids)}`
        return { figures: yield* figures(sql, project.id), usage: usage!.total }
      })
    )
    expect(result.usage).toBe("6000")
    expect(result.figures).toEqual({ balance: String(1_000_000 - 6_000), held: "0", settled: "6000", settlements: "3", rows: "3" })
  })

  it("reconciliation settles an expired hold from its usage row, releases one without a row, and never twice", async () => {
    const result = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const project = yield* (yield* Accounts).createProject("reconcile")
        yield* credit(sql, { projectId: project.id, amount: 1_000_000n, kind: "grant", note: null, requestId: null })
        const now = Date.now()
        const hold = (id: string, ttlMs: number) => reserve(sql, { projectId: project.id, keyId: "k1", reservationId: `${project.id}-${id}`, amount: 100_000n, ttlMs, now })
        // "lost": its usage row was written but its settlement never was (an unbilled write, as a
        // settlement lost by an earlier version); "gone": no usage row at all; "live": not expired yet.
        yield* hold("lost", 1)
        yield* hold("gone", 1)
        yield* hold("live", 600_000)
        yield* makeUsageWriter(sql).insert([usageEvent({ requestId: `${project.id}-lost`, occurredAt: now, costNanoUsd: 42_000 })])
        const later = now + 1_000
        const first = yield* reconcile(sql, later)
        const second = yield* reconcile(sql, later)
        const left = yield* sql<{ id: string }>`SELECT id FROM reservations WHERE project_id = ${project.id}`
        return { first, second, figures: yield* figures(sql, project.id), left: left.map((r) => r.id) }
      })
    )
    expect(result.first).toMatchObject({ settled: 1, released: 1, settledNanoUsd: 42_000n })
    expect(result.second).toMatchObject({ settled: 0, released: 0 })
    expect(result.figures).toMatchObject({ balance: String(1_000_000 - 42_000), settled: "42000", settlements: "1", rows: "1", held: "1" })
    expect(result.left).toEqual([expect.stringMatching(/-live$/)])
  })

  it("leased requests written twice settle once and lower their lease once; reconciliation past the lease's TTL adds nothing", async () => {
    const result = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const project = yield* (yield* Accounts).createProject("leased")
        yield* credit(sql, { projectId: project.id, amount: 1_000_000n, kind: "grant", note: null, requestId: null })
        const now = Date.now()
        const leaseId = `lease:test-${project.id}:k1:0`
        const taken = yield* takeLease(sql, { projectId: project.id, keyId: "k1", leaseId, grow: false, want: 100_000n, least: 100_000n, ttlMs: 60_000, now })
        const ids = [1, 2, 3].map((i) => `${project.id}-leased-${i}`)
        const batch = ids.map((id, i) =>
          usageEvent({ requestId: id, occurredAt: now, costNanoUsd: 1_000 * (i + 1), settlement: { projectId: project.id, keyId: "k1", leaseId } }))
        const writer = makeUsageWriter(sql)
        yield* writer.insert(batch)
        yield* writer.insert(batch)
        const lease = () => Effect.map(sql<{ amount: string }>`SELECT amount_nano::text AS amount FROM reservations WHERE id = ${leaseId}`, (rows) => rows[0]?.amount)
        const afterWrites = yield* lease()
        const reconciled = yield* reconcile(sql, now + 120_000)
        const rows = yield* sql<{ request_id: string | null; requests: number | null; amount: string }>`SELECT request_id, requests,
          amount_nano::text AS amount FROM credit_ledger WHERE project_id = ${project.id} AND kind = 'settlement'`
        return { taken, afterWrites, reconciled, figures: yield* figures(sql, project.id), rows }
      })
    )
    expect(result.taken).toEqual({ _tag: "Granted", granted: 100_000n })
    // Lowered by the costs once: the room others see did not change when the balance fell.
    expect(result.afterWrites).toBe(String(100_000 - 6_000))
    expect(result.reconciled).toMatchObject({ settled: 0, released: 0 })
    expect(result.figures).toEqual({ balance: String(1_000_000 - 6_000), held: "1", settled: "6000", settlements: "3", rows: "1" })
    // One row settles the key's three leased requests; their usage rows keep each one's cost.
    expect(result.rows).toEqual([{ request_id: null, requests: 3, amount: "-6000" }])
  })
})
