import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import type { BillingStatusView, CreditLedgerView } from "../../Domain/BillingView.ts"
import { usdFromNano } from "../../Domain/NanoUsd.ts"
import { type Period, periodStart } from "./BillingDecision.ts"
import { ensureAccount, transaction } from "./BillingStore.ts"

/** The admin side of billing: limits set and cleared, and what a project's figures are. */

const big = (value: unknown): bigint => (value === null || value === undefined ? 0n : BigInt(String(value)))

export const setSpendLimit = (
  sql: SqlClient.SqlClient,
  input: { readonly projectId: string; readonly keyId: string; readonly period: Period; readonly limit: bigint | null }
): Effect.Effect<void, SqlError.SqlError> =>
  input.limit === null
    ? Effect.asVoid(sql`DELETE FROM spend_limits WHERE project_id = ${input.projectId} AND key_id = ${input.keyId} AND period = ${input.period}`)
    : transaction(sql, 
      Effect.gen(function* () {
        yield* ensureAccount(sql, input.projectId)
        yield* sql`INSERT INTO spend_limits (project_id, key_id, period, limit_nano)
          VALUES (${input.projectId}, ${input.keyId}, ${input.period}, ${input.limit!.toString()}::bigint)
          ON CONFLICT (project_id, key_id, period) DO UPDATE SET limit_nano = EXCLUDED.limit_nano`
      })
    )

/** `rpm`/`tpm` undefined: kept as they are (none for a new limit); null: none. Both none removes the limit. */
export const setRateLimit = (
  sql: SqlClient.SqlClient,
  input: {
    readonly projectId: string
    readonly keyId: string
    readonly model: string
    readonly rpm: number | null | undefined
    readonly tpm: number | null | undefined
  }
): Effect.Effect<void, SqlError.SqlError> =>
  transaction(sql, Effect.gen(function* () {
    const where = sql`project_id = ${input.projectId} AND key_id = ${input.keyId} AND model = ${input.model}`
    if (input.rpm === null && input.tpm === null) return yield* Effect.asVoid(sql`DELETE FROM rate_limits WHERE ${where}`)
    yield* sql`INSERT INTO rate_limits (project_id, key_id, model, rpm, tpm)
      VALUES (${input.projectId}, ${input.keyId}, ${input.model}, ${input.rpm ?? null}, ${input.tpm ?? null})
      ON CONFLICT (project_id, key_id, model) DO UPDATE SET
        rpm = ${input.rpm === undefined ? sql`rate_limits.rpm` : sql`EXCLUDED.rpm`},
        tpm = ${input.tpm === undefined ? sql`rate_limits.tpm` : sql`EXCLUDED.tpm`}`
    yield* sql`DELETE FROM rate_limits WHERE ${where} AND rpm IS NULL AND tpm IS NULL`
  }))

/** Read in one transaction (on the embedded storage, in turn with billing's writes): the figures agree with each other. */
export const billingStatus = (sql: SqlClient.SqlClient, projectId: string, now: number): Effect.Effect<BillingStatusView, SqlError.SqlError> =>
  transaction(sql, Effect.gen(function* () {
    const [account] = yield* sql<{ balance: string | null }>`SELECT balance_nano::text AS balance FROM billing_accounts WHERE project_id = ${projectId}`
    const [reserved] = yield* sql<{ total: string | null }>`SELECT sum(amount_nano)::text AS total FROM reservations
      WHERE project_id = ${projectId} AND expires_at > ${new Date(now)}`
    const counters = yield* sql<{ key_id: string; period: Period; spent: string }>`SELECT key_id, period, spent_nano::text AS spent
      FROM spend_counters WHERE project_id = ${projectId} AND (
        (period = 'day' AND period_start = ${new Date(periodStart("day", now))}) OR
        (period = 'month' AND period_start = ${new Date(periodStart("month", now))}) OR period = 'total')`
    const spentOf = (keyId: string, period: Period) => big(counters.find((c) => c.key_id === keyId && c.period === period)?.spent)
    const limits = yield* sql<{ key_id: string; period: Period; limit_nano: string }>`SELECT key_id, period, limit_nano::text AS limit_nano
      FROM spend_limits WHERE project_id = ${projectId} ORDER BY key_id, period`
    const rates = yield* sql<{ key_id: string; model: string; rpm: number | null; tpm: number | null }>`SELECT key_id, model, rpm, tpm
      FROM rate_limits WHERE project_id = ${projectId} ORDER BY key_id, model`
    return {
      object: "billing",
      project_id: projectId,
      balance_usd: account === undefined || account.balance === null ? null : usdFromNano(big(account.balance)),
      reserved_usd: usdFromNano(big(reserved?.total)),
      spend: { day_usd: usdFromNano(spentOf("", "day")), month_usd: usdFromNano(spentOf("", "month")), total_usd: usdFromNano(spentOf("", "total")) },
      spend_limits: limits.map((l) => ({
        key_id: l.key_id === "" ? null : l.key_id,
        period: l.period,
        limit_usd: usdFromNano(big(l.limit_nano)),
        spent_usd: usdFromNano(spentOf(l.key_id, l.period))
      })),
      rate_limits: rates.map((r) => ({ key_id: r.key_id === "" ? null : r.key_id, model: r.model === "" ? null : r.model, rpm: r.rpm, tpm: r.tpm }))
    } satisfies BillingStatusView
  }))

export const creditLedger = (sql: SqlClient.SqlClient, projectId: string, limit: number): Effect.Effect<CreditLedgerView, SqlError.SqlError> =>
  transaction(sql, Effect.gen(function* () {
    const rows = yield* sql<{
      seq: string
      kind: "grant" | "settlement" | "refund"
      amount: string
      key_id: string | null
      request_id: string | null
      requests: number | null
      note: string | null
      granted_by: string | null
      created_at: number
    }>`SELECT seq::text AS seq, kind, amount_nano::text AS amount, key_id, request_id, requests, note, granted_by,
        extract(epoch from created_at)::float8 AS created_at
      FROM credit_ledger WHERE project_id = ${projectId} ORDER BY seq DESC LIMIT ${limit}`
    const [sums] = yield* sql<{ rebuilt: string | null; balance: string | null }>`SELECT
        (SELECT sum(amount_nano)::text FROM credit_ledger WHERE project_id = ${projectId}
          AND seq >= (SELECT min(seq) FROM credit_ledger WHERE project_id = ${projectId} AND kind = 'grant')) AS rebuilt,
        (SELECT balance_nano::text FROM billing_accounts WHERE project_id = ${projectId}) AS balance`
    return {
      object: "list",
      data: rows.map((r) => ({
        seq: Number(r.seq),
        kind: r.kind,
        amount_usd: usdFromNano(big(r.amount)),
        amount_nano_usd: r.amount,
        key_id: r.key_id,
        request_id: r.request_id,
        // Settlement rows from before the column settle their one request.
        requests: r.kind === "settlement" ? (r.requests ?? 1) : null,
        note: r.note,
        granted_by: r.granted_by,
        created_at: Math.floor(r.created_at)
      })),
      rebuilt_balance_nano_usd: sums?.rebuilt ?? null,
      balance_nano_usd: sums?.balance ?? null
    } satisfies CreditLedgerView
  }))
