import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { periodStart, periods } from "./BillingDecision.ts"

/**
 * What one billed request owes: its priced cost and the hold it settles (its own reservation,
 * whose id is the request id, or the lease it was admitted from).
 */
export interface Settlement {
  readonly projectId: string
  readonly keyId: string
  readonly requestId: string
  readonly cost: bigint
  readonly leaseId?: string | undefined
}

const byProject = (items: ReadonlyArray<Settlement>): Map<string, Array<Settlement>> => {
  const groups = new Map<string, Array<Settlement>>()
  for (const item of items) {
    const group = groups.get(item.projectId)
    if (group === undefined) groups.set(item.projectId, [item])
    else group.push(item)
  }
  return groups
}

/** Spend per (key, period) of a project's settlements: the project's own row ('') and each key's. */
const spendRows = (projectId: string, items: ReadonlyArray<Settlement>, now: number) => {
  const perKey = new Map<string, bigint>([["", 0n]])
  for (const item of items) {
    perKey.set("", perKey.get("")! + item.cost)
    perKey.set(item.keyId, (perKey.get(item.keyId) ?? 0n) + item.cost)
  }
  return periods.flatMap((period) =>
    [...perKey].filter(([, spent]) => spent > 0n).map(([keyId, spent]) => ({
      project_id: projectId,
      key_id: keyId,
      period,
      period_start: new Date(periodStart(period, now)),
      spent_nano: spent.toString()
    }))
  )
}

/**
 * Settles `items` in the caller's transaction: for each project (in id order, so two batches
 * never wait on each other's row locks), under its `billing_accounts` row lock, one
 * `settlement` row per request in the credit ledger, the balance (if any) lowered by their sum,
 * the spend counters of the project and keys raised, and the holds gone: a request's own
 * reservation deleted, a lease lowered by what was settled against it. A hold that already
 * expired is settled all the same: the provider bills the call. Whoever calls this decides
 * that the items were not settled before (the usage ledger settles only the rows it inserted).
 */
export const settleMany = (sql: SqlClient.SqlClient, items: ReadonlyArray<Settlement>, now: number): Effect.Effect<void, SqlError.SqlError> =>
  Effect.forEach(
    [...byProject(items)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ([projectId, group]) =>
      Effect.gen(function* () {
        const [account] = yield* sql<{ billed: boolean }>`SELECT true AS billed FROM billing_accounts WHERE project_id = ${projectId} FOR UPDATE`
        const own = group.filter((item) => item.leaseId === undefined).map((item) => item.requestId)
        if (own.length > 0) yield* sql`DELETE FROM reservations WHERE id IN ${sql.in(own)}`
        const leases = new Map<string, bigint>()
        for (const item of group) if (item.leaseId !== undefined) leases.set(item.leaseId, (leases.get(item.leaseId) ?? 0n) + item.cost)
        for (const [leaseId, used] of leases) {
          yield* sql`UPDATE reservations SET amount_nano = greatest(0, amount_nano - ${used.toString()}::bigint) WHERE id = ${leaseId}`
        }
        const charged = group.filter((item) => item.cost > 0n)
        if (account === undefined || charged.length === 0) return
        const total = charged.reduce((sum, item) => sum + item.cost, 0n).toString()
        yield* sql`UPDATE billing_accounts SET balance_nano = balance_nano - ${total}::bigint, updated_at = now() WHERE project_id = ${projectId}`
        // One JSON parameter for the batch's rows, an array [key, amount, request] each, as the
        // usage rows are written (UsageWriter.ts): one pass in the database instead of five bind
        // parameters a row.
        const rows = JSON.stringify(charged.map((item) => [item.keyId, (-item.cost).toString(), item.requestId]))
        yield* sql`INSERT INTO credit_ledger (project_id, key_id, kind, amount_nano, request_id)
          SELECT ${projectId}, r->>0, 'settlement', (r->>1)::bigint, r->>2
          FROM jsonb_array_elements(${rows}::jsonb) AS r`
        const [first, ...rest] = spendRows(projectId, charged, now)
        if (first === undefined) return
        yield* sql`INSERT INTO spend_counters ${sql.insert([first, ...rest])}
          ON CONFLICT (project_id, key_id, period, period_start) DO UPDATE SET spent_nano = spend_counters.spent_nano + EXCLUDED.spent_nano`
      }),
    { discard: true }
  )
