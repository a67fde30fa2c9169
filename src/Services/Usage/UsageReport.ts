import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { usdFromNano } from "../../Domain/NanoUsd.ts"
import type { UsageReport, UsageTotals } from "../../Domain/UsageEvent.ts"

interface TotalsRow {
  readonly model: string | null
  readonly requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly cache_write_tokens: number
  readonly units: number
  /** Exact: the sum of a bigint column, as text. */
  readonly cost_nano_usd: string
}

interface Sums {
  readonly requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly cache_write_tokens: number
  readonly units: number
  readonly nano: bigint
}

const totalsOf = (s: Sums): UsageTotals => ({
  requests: s.requests,
  prompt_tokens: s.prompt_tokens,
  completion_tokens: s.completion_tokens,
  cached_tokens: s.cached_tokens,
  cache_write_tokens: s.cache_write_tokens,
  units: s.units,
  cost_usd: usdFromNano(s.nano),
  cost_nano_usd: s.nano.toString()
})

const sumsOf = (row: TotalsRow): Sums => ({
  requests: Number(row.requests),
  prompt_tokens: Number(row.prompt_tokens),
  completion_tokens: Number(row.completion_tokens),
  cached_tokens: Number(row.cached_tokens),
  cache_write_tokens: Number(row.cache_write_tokens),
  units: Number(row.units),
  nano: BigInt(row.cost_nano_usd)
})

const add = (a: Sums, b: Sums): Sums => ({
  requests: a.requests + b.requests,
  prompt_tokens: a.prompt_tokens + b.prompt_tokens,
  completion_tokens: a.completion_tokens + b.completion_tokens,
  cached_tokens: a.cached_tokens + b.cached_tokens,
  cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
  units: a.units + b.units,
  nano: a.nano + b.nano
})

const zero: Sums = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, units: 0, nano: 0n }

/**
 * A project's usage in a window, by the model that served. Cost is summed as integers (in the
 * database, then in bigint) and `cost_usd` is formatted from that integer, so a report never
 * shows a float artefact such as 0.30000000000000004.
 */
export const usageReport = (
  sql: SqlClient.SqlClient,
  { projectId, projectSeq, from, to }: { readonly projectId: string; readonly projectSeq: number; readonly from: number; readonly to: number }
): Effect.Effect<UsageReport> =>
  Effect.gen(function* () {
    const rows = yield* sql<TotalsRow>`SELECT l.name AS model, count(*)::float8 AS requests,
        coalesce(sum(e.prompt_tokens), 0)::float8 AS prompt_tokens,
        coalesce(sum(e.completion_tokens), 0)::float8 AS completion_tokens,
        coalesce(sum(e.cached_tokens), 0)::float8 AS cached_tokens,
        coalesce(sum(e.cache_write_tokens), 0)::float8 AS cache_write_tokens,
        coalesce(sum(e.units), 0)::float8 AS units,
        coalesce(sum(e.cost_nano_usd), 0)::text AS cost_nano_usd
      FROM usage_events e LEFT JOIN usage_labels l ON l.id = e.used_model
      WHERE e.project_seq = ${projectSeq} AND e.occurred_at >= ${new Date(from * 1000)} AND e.occurred_at < ${new Date(to * 1000)}
      GROUP BY l.name ORDER BY l.name`.pipe(Effect.orDie)
    const sums = rows.map((row) => ({ model: row.model, sums: sumsOf(row) }))
    return {
      object: "usage_report",
      project_id: projectId,
      from,
      to,
      totals: totalsOf(sums.reduce((acc, m) => add(acc, m.sums), zero)),
      by_model: sums.map((m) => ({ model: m.model, ...totalsOf(m.sums) }))
    } satisfies UsageReport
  })
