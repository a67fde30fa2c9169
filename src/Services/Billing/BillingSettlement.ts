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
 * The credit ledger's settlement rows of one project's charged items, each
 * [key, amount, request id, requests]. A request with its own reservation gets a row of its own
 * (reconciliation looks a settlement up by request id). Requests admitted from a lease get one
 * row per key, settling them all (`requests`, no request id): the lease, not the request, is
 * their hold, and the usage rows written in the same transaction keep each one's cost. A row
 * per leased request cost the embedded database about as much as its usage row. A key with one
 * leased request in the batch gets the usual row, request id and all.
 */
export const ledgerRows = (charged: ReadonlyArray<Settlement>): Array<readonly [string, string, string | null, number | null]> => {
  const rows: Array<readonly [string, string, string | null, number | null]> = []
  const leased = new Map<string, { cost: bigint; requests: number; readonly first: string }>()
  for (const item of charged) {
    if (item.leaseId === undefined) {
      rows.push([item.keyId, (-item.cost).toString(), item.requestId, null])
      continue
    }
    const sum = leased.get(item.keyId)
    if (sum === undefined) leased.set(item.keyId, { cost: item.cost, requests: 1, first: item.requestId })
    else {
      sum.cost += item.cost
      sum.requests++
    }
  }
  for (const [keyId, sum] of leased) {
    rows.push(sum.requests === 1 ? [keyId, (-sum.cost).toString(), sum.first, null] : [keyId, (-sum.cost).toString(), null, sum.requests])
  }
  return rows
}

/**
 * Settles `items` in the caller's transaction: for each project (in id order, so two batches
 * never wait on each other's row locks), under its `billing_accounts` row lock, one
 * `settlement` row per request in the credit ledger (per key for leased requests, `ledgerRows`),
 * the balance (if any) lowered by their sum, the spend counters of the project and keys raised, and the holds gone: a request's own
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
        // One JSON parameter for the batch's rows, an array [key, amount, request, requests] each,
        // as the usage rows are written (UsageWriter.ts): one pass in the database instead of
        // bind parameters per row.
        yield* sql`INSERT INTO credit_ledger (project_id, key_id, kind, amount_nano, request_id, requests)
          SELECT ${projectId}, r->>0, 'settlement', (r->>1)::bigint, r->>2, (r->>3)::integer
          FROM jsonb_array_elements(${JSON.stringify(ledgerRows(charged))}::jsonb) AS r`
        const [first, ...rest] = spendRows(projectId, charged, now)
        if (first === undefined) return
        yield* sql`INSERT INTO spend_counters ${sql.insert([first, ...rest])}
          ON CONFLICT (project_id, key_id, period, period_start) DO UPDATE SET spent_nano = spend_counters.spent_nano + EXCLUDED.spent_nano`
      }),
    { discard: true }
  )
