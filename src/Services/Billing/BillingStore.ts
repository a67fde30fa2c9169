import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { settleMany } from "./BillingSettlement.ts"
import { typedSqlFailures } from "../Storage/SqlFailures.ts"
import { type BillingState, type LimitUse, type Period, periodStart, type Refusal, refusalOf } from "./BillingDecision.ts"

/**
 * The database side of billing: Postgres (or the embedded database) is the authority for
 * balances, spend and reservations. A reservation and its settlement each run in one
 * transaction that first locks the project's `billing_accounts` row, so concurrent admissions
 * of one project, from any instance, are decided one after another on the same figures.
 */

const sessions = new WeakMap<object, Semaphore.Semaphore>()

/**
 * The embedded storage serves every connection from one database session, so two transactions
 * on it would interleave statements; on it, billing's transactions take turns in this process
 * (the only one, since embedded storage serves one instance).
 */
export const singleSession = (sql: SqlClient.SqlClient): void => {
  if (!sessions.has(sql)) sessions.set(sql, Semaphore.makeUnsafe(1))
}

/**
 * One billing transaction; every failure of the SQL client, the defects it raises on a dead
 * connection included, comes out as a typed `SqlError` (see `typedSqlFailures`).
 */
export const transaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  exclusively(sql, transactionInTurn(sql, effect))

/** A transaction for a caller already inside `exclusively`. */
export const transactionInTurn = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  typedSqlFailures(sql.withTransaction(effect))

/** Runs `effect` in its turn of the embedded storage's one session (at once on Postgres). */
export const exclusively = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const lock = sessions.get(sql)
  return lock === undefined ? effect : lock.withPermit(effect)
}

export const big = (value: unknown): bigint => (value === null || value === undefined ? 0n : BigInt(String(value)))

export interface ReserveInput {
  readonly projectId: string
  readonly keyId: string
  readonly reservationId: string
  readonly amount: bigint
  readonly ttlMs: number
  readonly now: number
}

export type ReserveOutcome = { readonly _tag: "Reserved" } | { readonly _tag: "Unbilled" } | { readonly _tag: "Refused"; readonly refusal: Refusal }

export interface SettleInput {
  readonly projectId: string
  readonly keyId: string
  readonly reservationId: string
  readonly cost: bigint
  readonly requestId: string
  readonly now: number
}

/**
 * The state `refusalOf` decides on, read under the project's row lock. An expired hold no
 * longer counts, but it stays until reconciliation (BillingReconcile.ts) settles it from the
 * usage ledger or releases it: deleting it here would lose the trace of a request whose
 * settlement never came.
 */
export const readState = (sql: SqlClient.SqlClient, projectId: string, keyId: string, balance: bigint | null, now: number) =>
  Effect.gen(function* () {
    const [reserved] = yield* sql<{ project: string | null; key: string | null }>`SELECT
        sum(amount_nano)::text AS project, (sum(amount_nano) FILTER (WHERE key_id = ${keyId}))::text AS key
      FROM reservations WHERE project_id = ${projectId} AND expires_at > ${new Date(now)}`
    const limits = yield* sql<{ key_id: string; period: Period; limit_nano: string; spent: string | null }>`SELECT
        l.key_id, l.period, l.limit_nano::text AS limit_nano, c.spent_nano::text AS spent
      FROM spend_limits l LEFT JOIN spend_counters c ON c.project_id = l.project_id AND c.key_id = l.key_id
        AND c.period = l.period AND c.period_start = CASE l.period
          WHEN 'day' THEN ${new Date(periodStart("day", now))}::timestamptz
          WHEN 'month' THEN ${new Date(periodStart("month", now))}::timestamptz
          ELSE ${new Date(0)}::timestamptz END
      WHERE l.project_id = ${projectId} AND l.key_id IN ('', ${keyId})`
    return {
      balance,
      reservedProject: big(reserved?.project),
      reservedKey: big(reserved?.key),
      limits: limits.map((row): LimitUse => ({
        scope: row.key_id === "" ? "project" : "key",
        period: row.period,
        limit: big(row.limit_nano),
        spent: big(row.spent)
      }))
    } satisfies BillingState
  })

export const lockAccount = (sql: SqlClient.SqlClient, projectId: string) =>
  Effect.map(
    sql<{ balance: string | null }>`SELECT balance_nano::text AS balance FROM billing_accounts WHERE project_id = ${projectId} FOR UPDATE`,
    (rows) => (rows[0] === undefined ? undefined : { balance: rows[0].balance === null ? null : big(rows[0].balance) })
  )

export const reserve = (sql: SqlClient.SqlClient, input: ReserveInput): Effect.Effect<ReserveOutcome, SqlError.SqlError> =>
  transaction(sql, 
    Effect.gen(function* () {
      const account = yield* lockAccount(sql, input.projectId)
      if (account === undefined) return { _tag: "Unbilled" } as const
      const state = yield* readState(sql, input.projectId, input.keyId, account.balance, input.now)
      const refusal = refusalOf(state, input.amount)
      if (refusal !== undefined) return { _tag: "Refused", refusal } as const
      yield* sql`INSERT INTO reservations (id, project_id, key_id, amount_nano, expires_at)
        VALUES (${input.reservationId}, ${input.projectId}, ${input.keyId}, ${input.amount.toString()}::bigint, ${new Date(input.now + input.ttlMs)})`
      return { _tag: "Reserved" } as const
    })
  )

/**
 * The actual cost replaces the reservation: one `settlement` row in the credit ledger, the
 * balance (if any) lowered by it and the spend counters of the project and key raised, in one
 * transaction (BillingSettlement.ts; the usage ledger settles batches the same way, with their
 * usage rows).
 */
export const settle = (sql: SqlClient.SqlClient, input: SettleInput): Effect.Effect<void, SqlError.SqlError> =>
  transaction(sql, settleMany(sql, [{ projectId: input.projectId, keyId: input.keyId, requestId: input.reservationId, cost: input.cost }], input.now))

/** Makes the project billed (a `billing_accounts` row) if it is not yet. */
export const ensureAccount = (sql: SqlClient.SqlClient, projectId: string) =>
  sql`INSERT INTO billing_accounts (project_id) VALUES (${projectId}) ON CONFLICT (project_id) DO NOTHING`

/**
 * A grant or refund: the balance (starting from zero if the project had none) and the ledger
 * change together. Returns the new balance.
 */
export const credit = (
  sql: SqlClient.SqlClient,
  input: { readonly projectId: string; readonly amount: bigint; readonly kind: "grant" | "refund"; readonly note: string | null; readonly requestId: string | null; readonly grantedBy?: string | null }
): Effect.Effect<bigint, SqlError.SqlError> =>
  transaction(sql, 
    Effect.gen(function* () {
      yield* ensureAccount(sql, input.projectId)
      const amount = input.amount.toString()
      const [row] = yield* sql<{ balance: string }>`UPDATE billing_accounts
        SET balance_nano = coalesce(balance_nano, 0) + ${amount}::bigint, updated_at = now()
        WHERE project_id = ${input.projectId} RETURNING balance_nano::text AS balance`
      yield* sql`INSERT INTO credit_ledger (project_id, kind, amount_nano, request_id, note, granted_by)
        VALUES (${input.projectId}, ${input.kind}, ${amount}::bigint, ${input.requestId}, ${input.note}, ${input.grantedBy ?? null})`
      return big(row?.balance)
    })
  )
