import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { usdFromNano } from "../../Domain/NanoUsd.ts"

/** One request as the request log lists it: one row of `usage_events`, with names instead of ids. */
export interface RequestLogRow {
  readonly request_id: string
  /** Unix seconds when the request arrived. */
  readonly created_at: number
  /** Pass as `before` to read the next (older) page. */
  readonly cursor: string
  readonly key_id: string | null
  readonly key_name: string | null
  readonly endpoint: string
  readonly requested_model: string | null
  /** The model that served; null when none did (refused before routing, every route failed). */
  readonly model: string | null
  readonly provider: string | null
  /** The HTTP status the client saw (200 for a stream that started, even if it later failed). */
  readonly status: number
  readonly streamed: boolean
  readonly cancelled: boolean
  readonly latency_ms: number
  readonly ttft_ms: number | null
  readonly attempts: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly cache_write_tokens: number
  readonly units: number
  readonly cost_usd: number
  readonly cost_nano_usd: string
  readonly error_type: string | null
  readonly error_code: string | null
  /** The request's trace id when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT); else null. */
  readonly trace_id: string | null
  /** Attempts, translation report, estimated usage and raw figures, when the request had any. */
  readonly detail: Readonly<Record<string, unknown>> | null
}

export interface RequestLogFilter {
  readonly projectSeq: number
  readonly limit: number
  /** A row's `cursor`: only rows older than it. */
  readonly before?: string | undefined
  readonly keyId?: string | undefined
  /** Served or requested model. */
  readonly model?: string | undefined
  readonly outcome?: "ok" | "error" | undefined
  /** The error code the client got (`error.code`). */
  readonly code?: string | undefined
}

interface Row extends Omit<RequestLogRow, "cost_usd" | "created_at" | "cursor"> {
  readonly micros: string
  readonly id: string
}

/** `<unix microseconds>_<row id>`: the order of the log, exact (no float on the way). */
const cursorPattern = /^(\d{1,17})_(\d{1,19})$/

export const isRequestLogCursor = (value: string): boolean => cursorPattern.test(value)

const columns = (sql: SqlClient.SqlClient) =>
  sql`e.request_id, (extract(epoch from e.occurred_at) * 1000000)::bigint::text AS micros, e.id::text AS id,
    k.id AS key_id, k.name AS key_name, coalesce(ep.name, 'unknown') AS endpoint,
    rm.name AS requested_model, um.name AS model, pv.name AS provider, e.status, e.streamed, e.cancelled,
    e.latency_ms, e.ttft_ms, e.attempts, e.prompt_tokens, e.completion_tokens, e.cached_tokens,
    e.cache_write_tokens, e.units::float8 AS units, e.cost_nano_usd::text AS cost_nano_usd,
    e.detail->'error'->>'type' AS error_type, e.detail->'error'->>'code' AS error_code, e.trace_id, e.detail
    FROM usage_events e
    LEFT JOIN api_keys k ON k.seq = e.key_seq
    LEFT JOIN usage_endpoints ep ON ep.id = e.endpoint
    LEFT JOIN usage_labels rm ON rm.id = e.requested_model
    LEFT JOIN usage_labels um ON um.id = e.used_model
    LEFT JOIN usage_labels pv ON pv.id = e.provider`

const rowOf = (row: Row): RequestLogRow => {
  const { micros, id, ...rest } = row
  return {
    ...rest,
    created_at: Math.floor(Number(BigInt(micros) / 1_000_000n)),
    cursor: `${micros}_${id}`,
    status: Number(row.status),
    latency_ms: Number(row.latency_ms),
    ttft_ms: row.ttft_ms === null ? null : Number(row.ttft_ms),
    attempts: Number(row.attempts),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    cached_tokens: Number(row.cached_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    units: Number(row.units),
    cost_usd: usdFromNano(BigInt(row.cost_nano_usd)),
    detail: typeof row.detail === "string" ? JSON.parse(row.detail) : row.detail
  }
}

/** A project's requests, newest first, filtered; one more row than asked is read to tell whether there are more. */
export const requestLog = (
  sql: SqlClient.SqlClient,
  filter: RequestLogFilter
): Effect.Effect<{ readonly data: ReadonlyArray<RequestLogRow>; readonly hasMore: boolean }> => {
  const clauses = [sql`e.project_seq = ${filter.projectSeq}`]
  const cursor = filter.before === undefined ? null : cursorPattern.exec(filter.before)
  if (cursor !== null) {
    clauses.push(sql`(e.occurred_at, e.id) < (timestamptz 'epoch' + ${cursor[1]}::bigint * interval '1 microsecond', ${cursor[2]}::bigint)`)
  }
  // By the key's number, so the (project_seq, key_seq, occurred_at) index serves the filter.
  if (filter.keyId !== undefined) clauses.push(sql`e.key_seq = (SELECT seq FROM api_keys WHERE id = ${filter.keyId})`)
  if (filter.model !== undefined) clauses.push(sql`(um.name = ${filter.model} OR rm.name = ${filter.model})`)
  if (filter.outcome === "ok") clauses.push(sql`e.status < 400`)
  if (filter.outcome === "error") clauses.push(sql`e.status >= 400`)
  if (filter.code !== undefined) clauses.push(sql`e.detail->'error'->>'code' = ${filter.code}`)
  return Effect.map(
    sql<Row>`SELECT ${columns(sql)} WHERE ${sql.and(clauses)} ORDER BY e.occurred_at DESC, e.id DESC LIMIT ${filter.limit + 1}`.pipe(Effect.orDie),
    (rows) => ({ data: rows.slice(0, filter.limit).map(rowOf), hasMore: rows.length > filter.limit })
  )
}

/** One request's usage record in a project, by its request id (`x-request-id`). */
export const requestRecord = (
  sql: SqlClient.SqlClient,
  projectSeq: number,
  requestId: string
): Effect.Effect<RequestLogRow | undefined> =>
  Effect.map(
    sql<Row>`SELECT ${columns(sql)} WHERE e.project_seq = ${projectSeq} AND e.request_id = ${requestId}
      ORDER BY e.occurred_at DESC LIMIT 1`.pipe(Effect.orDie),
    (rows) => (rows[0] === undefined ? undefined : rowOf(rows[0]))
  )
