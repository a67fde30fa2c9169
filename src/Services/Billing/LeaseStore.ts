import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { leaseGrant, type Refusal, refusalOf, roomOf } from "./BillingDecision.ts"
import { big, lockAccount, readState, transaction } from "./BillingStore.ts"

/**
 * The database side of a lease. A lease is a row of `reservations` (id
 * `lease:<instance>:<key>:<generation>`) whose amount is what the instance has taken from the
 * project's balance and limits and not yet settled: every admission decision, on any instance,
 * subtracts it from the room exactly as it does a single request's hold, so nothing can be
 * admitted locally that was not taken first. Settlements are not written here: the usage ledger
 * writes each leased request's settlement with its usage row and lowers the lease by its cost in
 * that transaction (`settleMany`).
 */

export interface LeaseTake {
  readonly projectId: string
  readonly keyId: string
  readonly leaseId: string
  /** The instance wrote this row before: grow it, or report it gone (it expired) rather than write it again. */
  readonly grow: boolean
  /** What the instance would like to add, and the least that serves the request waiting. */
  readonly want: bigint
  readonly least: bigint
  readonly ttlMs: number
  readonly now: number
}

export type LeaseTakeOutcome =
  | { readonly _tag: "Granted"; readonly granted: bigint }
  /** The row to grow expired (and went): its generation is over, the instance starts another. */
  | { readonly _tag: "Gone" }
  | { readonly _tag: "Unbilled" }
  | { readonly _tag: "Refused"; readonly refusal: Refusal }

export interface LeaseFlush {
  readonly leaseId: string
  /** Taken but no longer wanted: handed back. */
  readonly giveBack: bigint
  /** Extend the row's life; false once the instance holds nothing of it (nothing free, nothing in flight). */
  readonly renew: boolean
  readonly ttlMs: number
  readonly now: number
}

export type LeaseFlushOutcome =
  | "Renewed"
  /** Not renewed and still holding costs the usage ledger has not written: looked at again next flush. */
  | "Kept"
  /** Nothing left in it: the row went. */
  | "Dropped"
  /** It had expired: no longer the instance's to admit from. */
  | "Gone"

/** What a lease manager needs from the database; a test double may leave a step out. */
export interface LeaseStore {
  readonly take: (input: LeaseTake) => Effect.Effect<LeaseTakeOutcome, SqlError.SqlError>
  /** Hands back `giveBack` and renews the lease (or drops it once empty), in one transaction. */
  readonly flush: (input: LeaseFlush) => Effect.Effect<LeaseFlushOutcome, SqlError.SqlError>
}

/**
 * Takes a slice under the project's row lock: the same room `reserve` decides on (expired leases
 * dropped first), sized by `leaseGrant`, added to the lease's row and debited from the room at
 * once. A row to grow that is no longer there expired: writing it again under the same id would
 * let settlements of requests admitted before the expiry lower the new slice, so the instance
 * moves to a new id instead (`Gone`).
 */
export const takeLease = (sql: SqlClient.SqlClient, input: LeaseTake): Effect.Effect<LeaseTakeOutcome, SqlError.SqlError> =>
  transaction(
    sql,
    Effect.gen(function* () {
      const account = yield* lockAccount(sql, input.projectId)
      if (account === undefined) return { _tag: "Unbilled" } as const
      // An expired lease is one whose instance died or lost the database for a whole TTL: what
      // it held is free again. Unlike a request's hold it leaves no trace worth reconciling
      // (each of its requests is settled with its usage row), so it goes.
      yield* sql`DELETE FROM reservations WHERE project_id = ${input.projectId} AND id LIKE 'lease:%' AND expires_at <= ${new Date(input.now)}`
      const state = yield* readState(sql, input.projectId, input.keyId, account.balance, input.now)
      const granted = leaseGrant(roomOf(state), input.want, input.least)
      if (granted === undefined) return { _tag: "Refused", refusal: refusalOf(state, input.least) ?? { which: "balance", available: 0n } } as const
      const amount = granted.toString()
      const expires = new Date(input.now + input.ttlMs)
      if (input.grow) {
        const grown = yield* sql`UPDATE reservations SET amount_nano = amount_nano + ${amount}::bigint, expires_at = ${expires}
          WHERE id = ${input.leaseId} RETURNING id`
        return grown.length === 0 ? { _tag: "Gone" } as const : { _tag: "Granted", granted } as const
      }
      yield* sql`INSERT INTO reservations (id, project_id, key_id, amount_nano, expires_at)
        VALUES (${input.leaseId}, ${input.projectId}, ${input.keyId}, ${amount}::bigint, ${expires})
        ON CONFLICT (id) DO UPDATE SET amount_nano = reservations.amount_nano + EXCLUDED.amount_nano, expires_at = EXCLUDED.expires_at`
      return { _tag: "Granted", granted } as const
    })
  )

/**
 * Hands back and renews. No account lock: lowering a hold and extending one the database still
 * counts only ever make room. An expired row is not renewed (its room may already be someone
 * else's) but removed; an empty row the instance no longer needs is removed too.
 */
export const flushLease = (sql: SqlClient.SqlClient, input: LeaseFlush): Effect.Effect<LeaseFlushOutcome, SqlError.SqlError> =>
  transaction(
    sql,
    Effect.gen(function* () {
      const lowered = input.giveBack.toString()
      const now = new Date(input.now)
      const rows = input.renew
        ? yield* sql<{ amount: string }>`UPDATE reservations SET amount_nano = amount_nano - ${lowered}::bigint, expires_at = ${new Date(input.now + input.ttlMs)}
          WHERE id = ${input.leaseId} AND expires_at > ${now} RETURNING amount_nano::text AS amount`
        : yield* sql<{ amount: string }>`UPDATE reservations SET amount_nano = amount_nano - ${lowered}::bigint
          WHERE id = ${input.leaseId} AND expires_at > ${now} RETURNING amount_nano::text AS amount`
      if (rows.length === 0) {
        yield* sql`DELETE FROM reservations WHERE id = ${input.leaseId}`
        return "Gone" as const
      }
      if (input.renew) return "Renewed" as const
      if (big(rows[0]!.amount) > 0n) return "Kept" as const
      yield* sql`DELETE FROM reservations WHERE id = ${input.leaseId} AND amount_nano <= 0`
      return "Dropped" as const
    })
  )

export const postgresLeaseStore = (sql: SqlClient.SqlClient): LeaseStore => ({
  take: (input) => takeLease(sql, input),
  flush: (input) => flushLease(sql, input)
})
