import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { leaseGrant, periodStart, periods, type Refusal, refusalOf, roomOf } from "./BillingDecision.ts"
import { big, lockAccount, readState, transaction } from "./BillingStore.ts"

/**
 * The database side of a lease. A lease is a row of `reservations` (id `lease:<instance>:<key>`)
 * whose amount is what the instance has taken from the project's balance and limits and not yet
 * settled: every admission decision, on any instance, subtracts it from the room exactly as it
 * does a single request's hold, so nothing can be admitted locally that was not taken first.
 */

export interface LeaseTake {
  readonly projectId: string
  readonly keyId: string
  readonly leaseId: string
  /** What the instance would like to add, and the least that serves the request waiting. */
  readonly want: bigint
  readonly least: bigint
  readonly ttlMs: number
  readonly now: number
}

export type LeaseTakeOutcome =
  /** `total`: the lease's amount after the grant (only `granted` if its row had expired). */
  | { readonly _tag: "Granted"; readonly granted: bigint; readonly total: bigint }
  | { readonly _tag: "Unbilled" }
  | { readonly _tag: "Refused"; readonly refusal: Refusal }

/** One request's priced cost, settled against the lease it was admitted from. */
export interface LeaseSettlement {
  readonly requestId: string
  readonly keyId: string
  readonly cost: bigint
  readonly at: number
}

export interface LeaseFlush {
  readonly projectId: string
  readonly leaseId: string
  readonly settlements: ReadonlyArray<LeaseSettlement>
  /** Taken but no longer wanted: handed back with the settlements. */
  readonly giveBack: bigint
  readonly ttlMs: number
  readonly now: number
}

/** What a lease manager needs from the database; a test double may leave a step out. */
export interface LeaseStore {
  readonly take: (input: LeaseTake) => Effect.Effect<LeaseTakeOutcome, SqlError.SqlError>
  /** Settles a batch, hands back `giveBack` and renews the lease, in one transaction. */
  readonly flush: (input: LeaseFlush) => Effect.Effect<void, SqlError.SqlError>
  /** Removes a lease whose requests are all settled (shutdown). */
  readonly drop: (leaseId: string) => Effect.Effect<void, SqlError.SqlError>
}

/**
 * Takes a slice under the project's row lock: the same room `reserve` decides on (expired leases
 * dropped first), sized by `leaseGrant`, added to the lease's row and debited from
 * the room at once.
 */
export const takeLease = (sql: SqlClient.SqlClient, input: LeaseTake): Effect.Effect<LeaseTakeOutcome, SqlError.SqlError> =>
  transaction(
    sql,
    Effect.gen(function* () {
      const account = yield* lockAccount(sql, input.projectId)
      if (account === undefined) return { _tag: "Unbilled" } as const
      // An expired lease is one whose instance died or lost the database for a whole TTL: what
      // it held is free again. Unlike a request's hold it leaves no trace worth reconciling
      // (its settled requests were written as they flushed), so it goes.
      yield* sql`DELETE FROM reservations WHERE project_id = ${input.projectId} AND id LIKE 'lease:%' AND expires_at <= ${new Date(input.now)}`
      const state = yield* readState(sql, input.projectId, input.keyId, account.balance, input.now)
      const granted = leaseGrant(roomOf(state), input.want, input.least)
      if (granted === undefined) return { _tag: "Refused", refusal: refusalOf(state, input.least) ?? { which: "balance", available: 0n } } as const
      const [row] = yield* sql<{ total: string }>`INSERT INTO reservations (id, project_id, key_id, amount_nano, expires_at)
        VALUES (${input.leaseId}, ${input.projectId}, ${input.keyId}, ${granted.toString()}::bigint, ${new Date(input.now + input.ttlMs)})
        ON CONFLICT (id) DO UPDATE SET amount_nano = reservations.amount_nano + EXCLUDED.amount_nano, expires_at = EXCLUDED.expires_at
        RETURNING amount_nano::text AS total`
      return { _tag: "Granted", granted, total: big(row?.total) } as const
    })
  )

const rowsPerInsert = 2_000

const sumOf = (settlements: ReadonlyArray<LeaseSettlement>) => settlements.reduce((total, s) => total + s.cost, 0n)

/**
 * The batch replaces its share of the lease: the balance lowered by the batch's total, one
 * `settlement` row per request in the credit ledger, the spend counters raised, and the lease
 * lowered by the same total (plus what is handed back) — so the room other admissions see does
 * not change by settling, only by handing back.
 */
export const flushLease = (sql: SqlClient.SqlClient, input: LeaseFlush): Effect.Effect<void, SqlError.SqlError> => {
  const settled = sumOf(input.settlements)
  const lowered = (settled + input.giveBack).toString()
  const expires = new Date(input.now + input.ttlMs)
  if (settled === 0n) {
    // Handing back and renewing only make room: no lock needed (`transaction` still, so that on
    // the embedded storage's one session it takes its turn).
    return transaction(sql, sql`UPDATE reservations SET amount_nano = amount_nano - ${lowered}::bigint, expires_at = ${expires}
      WHERE id = ${input.leaseId}`).pipe(Effect.asVoid)
  }
  return transaction(
    sql,
    Effect.gen(function* () {
      const account = yield* lockAccount(sql, input.projectId)
      yield* sql`UPDATE reservations SET amount_nano = amount_nano - ${lowered}::bigint, expires_at = ${expires} WHERE id = ${input.leaseId}`
      if (account === undefined) return
      yield* sql`UPDATE billing_accounts SET balance_nano = balance_nano - ${settled.toString()}::bigint, updated_at = now()
        WHERE project_id = ${input.projectId}`
      const charged = input.settlements.filter((s) => s.cost > 0n)
      // In statements of at most `rowsPerInsert` rows: a statement carries at most 32,767 parameters.
      for (let from = 0; from < charged.length; from += rowsPerInsert) {
        const [entry, ...entries] = charged.slice(from, from + rowsPerInsert).map((s) => ({
          project_id: input.projectId,
          key_id: s.keyId,
          kind: "settlement",
          amount_nano: (-s.cost).toString(),
          request_id: s.requestId
        }))
        yield* sql`INSERT INTO credit_ledger ${sql.insert([entry!, ...entries])}`
      }
      const counters = new Map<string, { key_id: string; period: string; period_start: Date; spent: bigint }>()
      for (const s of charged) {
        for (const period of periods) {
          const start = periodStart(period, s.at)
          for (const keyId of ["", s.keyId]) {
            const id = `${keyId}\u0000${period}\u0000${start}`
            const row = counters.get(id)
            if (row === undefined) counters.set(id, { key_id: keyId, period, period_start: new Date(start), spent: s.cost })
            else row.spent += s.cost
          }
        }
      }
      const [row, ...rows] = [...counters.values()].map((c) => ({
        project_id: input.projectId,
        key_id: c.key_id,
        period: c.period,
        period_start: c.period_start,
        spent_nano: c.spent.toString()
      }))
      yield* sql`INSERT INTO spend_counters ${sql.insert([row!, ...rows])}
        ON CONFLICT (project_id, key_id, period, period_start) DO UPDATE SET spent_nano = spend_counters.spent_nano + EXCLUDED.spent_nano`
    })
  )
}

export const postgresLeaseStore = (sql: SqlClient.SqlClient): LeaseStore => ({
  take: (input) => takeLease(sql, input),
  flush: (input) => flushLease(sql, input),
  drop: (leaseId) => Effect.asVoid(transaction(sql, sql`DELETE FROM reservations WHERE id = ${leaseId}`))
})
