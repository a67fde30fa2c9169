import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"

/**
 * Whether the project is billed (it has a balance or a limit) and since when: its spend counters
 * (what spend limits and the billing status read) start then, while the usage ledger counts every
 * request. `since` is null for an account opened before the gateway recorded the date.
 */
export const billingSince = (
  sql: SqlClient.SqlClient,
  projectId: string
): Effect.Effect<{ readonly billed: boolean; readonly since: number | null }> =>
  Effect.map(
    sql<{ since: number | null }>`SELECT extract(epoch from created_at)::float8 AS since FROM billing_accounts
      WHERE project_id = ${projectId}`.pipe(Effect.orDie),
    (rows) => ({ billed: rows.length > 0, since: rows[0]?.since === null || rows[0] === undefined ? null : Math.floor(Number(rows[0].since)) })
  )
