import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { usdFromNano } from "../../Domain/NanoUsd.ts"

/** Requests, failures, tokens and cost of a project in one window, from the usage ledger. */
export interface UsageSummary {
  readonly requests: number
  /** Requests answered with a 4xx or 5xx. */
  readonly errors: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cost_usd: number
  readonly cost_nano_usd: string
}

export interface ModelSummary extends UsageSummary {
  readonly model: string | null
}

export interface KeyUsage extends UsageSummary {
  readonly key_id: string
  readonly name: string | null
  /** Unix seconds of the key's latest request in the window; null when it made none. */
  readonly last_used_at: number | null
}

interface SumRow {
  readonly requests: number
  readonly errors: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cost_nano_usd: string
}

const sums = (sql: SqlClient.SqlClient) =>
  sql`count(e.request_id)::float8 AS requests, count(*) FILTER (WHERE e.status >= 400)::float8 AS errors,
    coalesce(sum(e.prompt_tokens), 0)::float8 AS prompt_tokens, coalesce(sum(e.completion_tokens), 0)::float8 AS completion_tokens,
    coalesce(sum(e.cost_nano_usd), 0)::text AS cost_nano_usd`

const summaryOf = (row: SumRow | undefined): UsageSummary => ({
  requests: Number(row?.requests ?? 0),
  errors: Number(row?.errors ?? 0),
  prompt_tokens: Number(row?.prompt_tokens ?? 0),
  completion_tokens: Number(row?.completion_tokens ?? 0),
  cost_usd: usdFromNano(BigInt(row?.cost_nano_usd ?? "0")),
  cost_nano_usd: row?.cost_nano_usd ?? "0"
})

const window = (from: number, to: number) => ({ from: new Date(from * 1000), to: new Date(to * 1000) })

/** A project's totals in a window (unix seconds, `from` inclusive, `to` exclusive). */
export const usageSummary = (sql: SqlClient.SqlClient, projectSeq: number, from: number, to: number): Effect.Effect<UsageSummary> => {
  const w = window(from, to)
  return Effect.map(
    sql<SumRow>`SELECT ${sums(sql)} FROM usage_events e
      WHERE e.project_seq = ${projectSeq} AND e.occurred_at >= ${w.from} AND e.occurred_at < ${w.to}`.pipe(Effect.orDie),
    (rows) => summaryOf(rows[0])
  )
}

/** The models that served most requests in a window, most first. */
export const topModels = (sql: SqlClient.SqlClient, projectSeq: number, from: number, to: number, limit: number): Effect.Effect<ReadonlyArray<ModelSummary>> => {
  const w = window(from, to)
  return Effect.map(
    sql<SumRow & { model: string | null }>`SELECT l.name AS model, ${sums(sql)} FROM usage_events e
      LEFT JOIN usage_labels l ON l.id = e.used_model
      WHERE e.project_seq = ${projectSeq} AND e.occurred_at >= ${w.from} AND e.occurred_at < ${w.to}
      GROUP BY l.name ORDER BY count(*) DESC, l.name LIMIT ${limit}`.pipe(Effect.orDie),
    (rows) => rows.map((row) => ({ model: row.model, ...summaryOf(row) }))
  )
}

/** Every key of the project (revoked ones too, when they were used) with its usage in a window. */
export const keyUsage = (sql: SqlClient.SqlClient, projectId: string, projectSeq: number, from: number, to: number): Effect.Effect<ReadonlyArray<KeyUsage>> => {
  const w = window(from, to)
  return Effect.map(
    sql<SumRow & { key_id: string; name: string | null; last_used_at: number | null }>`SELECT k.id AS key_id, k.name,
        ${sums(sql)}, extract(epoch from max(e.occurred_at))::float8 AS last_used_at
      FROM api_keys k LEFT JOIN usage_events e ON e.key_seq = k.seq AND e.project_seq = ${projectSeq}
        AND e.occurred_at >= ${w.from} AND e.occurred_at < ${w.to}
      WHERE k.project_id = ${projectId}
      GROUP BY k.id, k.name, k.seq, k.revoked_at
      HAVING k.revoked_at IS NULL OR count(e.request_id) > 0
      ORDER BY coalesce(sum(e.cost_nano_usd), 0) DESC, count(e.request_id) DESC, k.seq`.pipe(Effect.orDie),
    (rows) =>
      rows.map((row) => ({
        key_id: row.key_id,
        name: row.name,
        ...summaryOf(row),
        last_used_at: row.last_used_at === null ? null : Math.floor(Number(row.last_used_at))
      }))
  )
}
