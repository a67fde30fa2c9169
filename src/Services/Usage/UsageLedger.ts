import * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import { usageEndpoints, type UsageEvent, type UsageReport, type UsageTotals } from "../../Domain/UsageEvent.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { ensureMonthlyPartitions, pruneMonthlyPartitions } from "./UsagePartitions.ts"

const eventColumns = [
  "occurred_at",
  "project_seq",
  "key_seq",
  "endpoint",
  "requested_model",
  "used_model",
  "provider",
  "status",
  "cancelled",
  "streamed",
  "prompt_tokens",
  "completion_tokens",
  "cached_tokens",
  "cache_write_tokens",
  "units",
  "latency_ms",
  "ttft_ms",
  "attempts",
  "cost_nano_usd",
  "request_id",
  "detail"
].join(", ")

/** Rows kept in memory while the database is unreachable before the oldest are shed. */
const maxBuffered = 200_000

interface TotalsRow {
  readonly model: string | null
  readonly requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly cache_write_tokens: number
  readonly units: number
  readonly cost_nano_usd: number
}

const totals = (row: TotalsRow): UsageTotals => ({
  requests: Number(row.requests),
  prompt_tokens: Number(row.prompt_tokens),
  completion_tokens: Number(row.completion_tokens),
  cached_tokens: Number(row.cached_tokens),
  cache_write_tokens: Number(row.cache_write_tokens),
  units: Number(row.units),
  cost_usd: Number(row.cost_nano_usd) / 1e9
})

/**
 * The usage log. `record` only appends to memory, so the response path never waits for the
 * database; a background fiber writes batches every `usage.flush_interval_ms`, and the
 * layer's finalizer writes what is left when the gateway stops.
 */
/** Only what is unusual carries detail: more than one attempt, or estimated tokens. */
const detailOf = (e: UsageEvent) => {
  const many = e.attempts.length > 1
  if (!many && e.usageEstimated !== true) return null
  return {
    ...(many ? { attempts: e.attempts } : {}),
    ...(e.usageEstimated === true ? { usage_estimated: true } : {})
  }
}

export class UsageLedger extends Context.Service<
  UsageLedger,
  {
    readonly record: (event: UsageEvent) => Effect.Effect<void>
    readonly flush: Effect.Effect<void>
    readonly pending: Effect.Effect<number>
    readonly report: (input: {
      readonly projectId: string
      readonly projectSeq: number
      readonly from: number
      readonly to: number
    }) => Effect.Effect<UsageReport>
  }
>()("gateway/UsageLedger") {
  static readonly layer = Layer.effect(
    UsageLedger,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const settings = (yield* GatewayConfigFile).config.usage
      let buffer: Array<UsageEvent> = []
      const labels = new Map<string, number>()
      const ensuredMonths = new Set<string>()

      const labelIds = Effect.fn("UsageLedger.labelIds")(function* (kind: string, names: ReadonlyArray<string>) {
        const missing = [...new Set(names)].filter((name) => !labels.has(`${kind}\u0000${name}`))
        const values: Array<Record<string, unknown>> = missing.map((name) => ({ kind, name }))
        if (Arr.isReadonlyArrayNonEmpty(values)) {
          const rows = yield* sql<{ id: number; name: string }>`INSERT INTO usage_labels ${sql.insert(
            values
          )} ON CONFLICT (kind, name) DO UPDATE SET name = EXCLUDED.name RETURNING id, name`
          for (const row of rows) labels.set(`${kind}\u0000${row.name}`, row.id)
        }
        return (name: string | null) => (name === null ? null : (labels.get(`${kind}\u0000${name}`) ?? null))
      })

      const write = Effect.fn("UsageLedger.write")(function* (batch: ReadonlyArray<UsageEvent>) {
        yield* ensureMonthlyPartitions(sql, ensuredMonths, batch.map((e) => e.occurredAt))
        const model = yield* labelIds("model", batch.flatMap((e) => [e.requestedModel, e.usedModel].filter((m) => m !== null)))
        const provider = yield* labelIds("provider", batch.flatMap((e) => (e.provider === null ? [] : [e.provider])))
        for (let offset = 0; offset < batch.length; offset += settings.max_batch) {
          const rows = batch.slice(offset, offset + settings.max_batch).map((e) => ({
            occurred_at: new Date(e.occurredAt),
            project_seq: e.projectSeq,
            key_seq: e.keySeq,
            endpoint: usageEndpoints[e.endpoint],
            requested_model: model(e.requestedModel),
            used_model: model(e.usedModel),
            provider: provider(e.provider),
            status: e.status,
            cancelled: e.cancelled,
            streamed: e.streamed,
            prompt_tokens: e.promptTokens,
            completion_tokens: e.completionTokens,
            cached_tokens: e.cachedTokens,
            cache_write_tokens: e.cacheWriteTokens,
            units: e.units,
            latency_ms: Math.round(e.latencyMs),
            ttft_ms: e.ttftMs === null ? null : Math.round(e.ttftMs),
            attempts: Math.max(1, e.attempts.length),
            cost_nano_usd: Math.round(e.costNanoUsd),
            request_id: e.requestId,
            detail: detailOf(e)
          }))
          // One JSON parameter per batch instead of one bind parameter per value: the database
          // unpacks it in a single pass, about half the cost per row of a VALUES list.
          if (rows.length > 0) {
            yield* sql.unsafe(
              `INSERT INTO usage_events (${eventColumns}) SELECT ${eventColumns} FROM json_populate_recordset(NULL::usage_events, $1::json)`,
              [JSON.stringify(rows)]
            )
          }
        }
      })

      // Swaps the buffer out before writing so concurrent `record` calls never wait; a failed
      // batch goes back in front so nothing recorded is lost while the database recovers.
      const flush = Effect.suspend(() => {
        if (buffer.length === 0) return Effect.void
        const batch = buffer
        buffer = []
        return write(batch).pipe(
          Effect.catchCause((cause) =>
            Effect.sync(() => {
              buffer = batch.concat(buffer)
              if (buffer.length > maxBuffered) buffer = buffer.slice(buffer.length - maxBuffered)
            }).pipe(Effect.andThen(Effect.logWarning("usage write failed; will retry", cause)))
          )
        )
      })

      yield* Effect.forkScoped(
        flush.pipe(Effect.repeat(Schedule.spaced(Duration.millis(settings.flush_interval_ms))))
      )
      if (settings.retention_days > 0) {
        yield* Effect.forkScoped(
          pruneMonthlyPartitions(sql, settings.retention_days).pipe(
            Effect.catchCause((cause) => Effect.logWarning("usage retention failed", cause)),
            Effect.repeat(Schedule.spaced(Duration.hours(6)))
          )
        )
      }
      // Runs after the HTTP server has drained, because this layer was built before it.
      yield* Effect.addFinalizer(() => flush.pipe(Effect.andThen(flush), Effect.timeout("15 seconds"), Effect.ignore))

      return UsageLedger.of({
        record: (event) =>
          Effect.sync(() => {
            buffer.push(event)
          }),
        flush,
        pending: Effect.sync(() => buffer.length),
        report: Effect.fn("UsageLedger.report")(function* ({ projectId, projectSeq, from, to }) {
          const rows = yield* sql<TotalsRow>`SELECT l.name AS model, count(*)::float8 AS requests,
              coalesce(sum(e.prompt_tokens), 0)::float8 AS prompt_tokens,
              coalesce(sum(e.completion_tokens), 0)::float8 AS completion_tokens,
              coalesce(sum(e.cached_tokens), 0)::float8 AS cached_tokens,
              coalesce(sum(e.cache_write_tokens), 0)::float8 AS cache_write_tokens,
              coalesce(sum(e.units), 0)::float8 AS units,
              coalesce(sum(e.cost_nano_usd), 0)::float8 AS cost_nano_usd
            FROM usage_events e LEFT JOIN usage_labels l ON l.id = e.used_model
            WHERE e.project_seq = ${projectSeq} AND e.occurred_at >= ${new Date(from * 1000)} AND e.occurred_at < ${new Date(to * 1000)}
            GROUP BY l.name ORDER BY l.name`.pipe(Effect.orDie)
          const byModel = rows.map((row) => ({ model: row.model, ...totals(row) }))
          const sum = (pick: (t: UsageTotals) => number) => byModel.reduce((acc, t) => acc + pick(t), 0)
          return {
            object: "usage_report",
            project_id: projectId,
            from,
            to,
            totals: {
              requests: sum((t) => t.requests),
              prompt_tokens: sum((t) => t.prompt_tokens),
              completion_tokens: sum((t) => t.completion_tokens),
              cached_tokens: sum((t) => t.cached_tokens),
              cache_write_tokens: sum((t) => t.cache_write_tokens),
              units: sum((t) => t.units),
              cost_usd: sum((t) => t.cost_usd)
            },
            by_model: byModel
          } satisfies UsageReport
        })
      })
    })
  )
}
