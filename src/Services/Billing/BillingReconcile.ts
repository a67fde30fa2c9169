import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { type Settlement, settleMany } from "./BillingSettlement.ts"
import { transaction } from "./BillingStore.ts"

/** What one reconciliation pass did. */
export interface ReconcileOutcome {
  /** Expired holds whose request had a usage row but no settlement: settled from the row's cost. */
  readonly settled: number
  readonly settledNanoUsd: bigint
  /** Expired holds whose request has no usage row (it never reached the ledger) or was settled already: released. */
  readonly released: number
}

/** Holds looked at per pass; a pass repeats until fewer come back. */
const pageSize = 500

interface ExpiredHold {
  readonly id: string
  readonly project_id: string
  readonly key_id: string
}

/**
 * Finds holds that outlived their TTL without a settlement and closes them from the usage
 * ledger: a request whose usage row is there but whose settlement is not (a settlement lost
 * by an earlier version, or written by a path that failed after its row) is settled from the
 * row's cost; a request with no usage row at all is released (its event never reached the
 * ledger: the instance died with it in memory). Per project, in one transaction under the
 * account's row lock, each hold is claimed by deleting it first, so two instances reconciling
 * at once, or a late settlement of the same request, never count a cent twice. Leases (ids
 * `lease:`) are not request holds and are left to their instances and their own expiry: a leased
 * request has no hold to reconcile, and its settlement is written exactly when its usage row is.
 */
export const reconcile = (sql: SqlClient.SqlClient, now: number): Effect.Effect<ReconcileOutcome, SqlError.SqlError> =>
  Effect.gen(function* () {
    let settled = 0
    let released = 0
    let settledNanoUsd = 0n
    for (;;) {
      const holds = yield* sql<ExpiredHold>`SELECT id, project_id, key_id FROM reservations
        WHERE expires_at <= ${new Date(now)} AND id NOT LIKE 'lease:%' ORDER BY expires_at LIMIT ${pageSize}`
      const byProject = new Map<string, Array<ExpiredHold>>()
      for (const hold of holds) byProject.set(hold.project_id, [...(byProject.get(hold.project_id) ?? []), hold])
      for (const [projectId, group] of byProject) {
        const outcome = yield* transaction(sql, reconcileProject(sql, projectId, group, now))
        settled += outcome.settled.length
        released += outcome.released
        for (const item of outcome.settled) settledNanoUsd += item.cost
      }
      if (holds.length < pageSize) return { settled, settledNanoUsd, released }
    }
  })

const reconcileProject = (sql: SqlClient.SqlClient, projectId: string, group: ReadonlyArray<ExpiredHold>, now: number) =>
  Effect.gen(function* () {
    yield* sql`SELECT project_id FROM billing_accounts WHERE project_id = ${projectId} FOR UPDATE`
    const ids = group.map((hold) => hold.id)
    // The claim: only holds still there (not settled meanwhile) are this pass's to close.
    const claimed = new Set((yield* sql<{ id: string }>`DELETE FROM reservations WHERE id IN ${sql.in(ids)} AND expires_at <= ${new Date(now)} RETURNING id`).map((row) => row.id))
    if (claimed.size === 0) return { settled: [], released: 0 }
    const rows = yield* sql<{ request_id: string; cost: string; settled: boolean }>`SELECT u.request_id, u.cost_nano_usd::text AS cost,
        EXISTS (SELECT 1 FROM credit_ledger c WHERE c.kind = 'settlement' AND c.request_id = u.request_id) AS settled
      FROM usage_events u WHERE u.request_id IN ${sql.in([...claimed])}`
    const usage = new Map(rows.map((row) => [row.request_id, row]))
    const settlements: Array<Settlement> = []
    let released = 0
    for (const hold of group) {
      if (!claimed.has(hold.id)) continue
      const row = usage.get(hold.id)
      if (row === undefined || row.settled) released++
      else settlements.push({ projectId, keyId: hold.key_id, requestId: hold.id, cost: BigInt(row.cost) })
    }
    if (settlements.length > 0) yield* settleMany(sql, settlements, now)
    return { settled: settlements, released }
  })
