import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { usdFromNano } from "../../Domain/NanoUsd.ts"

export interface DailyUsageRow {
  readonly day: string
  readonly model: string | null
  readonly requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly units: number
  readonly cost_usd: number
  readonly cost_nano_usd: string
}

/** A row as the database sums it, before the cost in dollars is derived. */
type Row = Omit<DailyUsageRow, "cost_usd">

/**
 * A project's usage per UTC day and serving model in a window (unix seconds, `from` inclusive,
 * `to` exclusive). Cost is summed as integers in the database, like the usage report.
 */
export const dailyUsage = (
  sql: SqlClient.SqlClient,
  { projectSeq, from, to }: { readonly projectSeq: number; readonly from: number; readonly to: number }
): Effect.Effect<ReadonlyArray<DailyUsageRow>> =>
  Effect.map(
    sql<Row>`SELECT to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, l.name AS model,
        count(*)::float8 AS requests,
        coalesce(sum(e.prompt_tokens), 0)::float8 AS prompt_tokens,
        coalesce(sum(e.completion_tokens), 0)::float8 AS completion_tokens,
        coalesce(sum(e.cached_tokens), 0)::float8 AS cached_tokens,
        coalesce(sum(e.units), 0)::float8 AS units,
        coalesce(sum(e.cost_nano_usd), 0)::text AS cost_nano_usd
      FROM usage_events e LEFT JOIN usage_labels l ON l.id = e.used_model
      WHERE e.project_seq = ${projectSeq} AND e.occurred_at >= ${new Date(from * 1000)} AND e.occurred_at < ${new Date(to * 1000)}
      GROUP BY 1, 2 ORDER BY 1, 2`.pipe(Effect.orDie),
    (rows) =>
      rows.map((row) => ({
        day: row.day,
        model: row.model,
        requests: Number(row.requests),
        prompt_tokens: Number(row.prompt_tokens),
        completion_tokens: Number(row.completion_tokens),
        cached_tokens: Number(row.cached_tokens),
        units: Number(row.units),
        cost_usd: usdFromNano(BigInt(row.cost_nano_usd)),
        cost_nano_usd: row.cost_nano_usd
      }))
  )
