import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { cleanText } from "../../Domain/UsageBounds.ts"
import { usageEndpoints, type UsageEvent } from "../../Domain/UsageEvent.ts"
import { type Settlement, settleMany } from "../Billing/BillingSettlement.ts"
import { exclusively, transaction, transactionInTurn } from "../Billing/BillingStore.ts"
import { ensureMonthlyPartitions } from "./UsagePartitions.ts"

/** The `usage_labels` ids of a batch's model and provider names. */
interface LabelIds {
  readonly model: (name: string | null) => number | null
  readonly provider: (name: string | null) => number | null
}

// Each row goes to the database as a JSON array of these values, in this order, and is cast
// column by column (`rowsInsert`): the keys of an object per row made the batch's text 3.5 times
// longer, and cost the gateway about 2 us a row to write and the database about as much to match.
// A column's name, how the database reads its element (`el`, the element as text) and its value
// sit on one line, so the array cannot drift from the columns. The time goes as epoch milliseconds:
// `JSON.stringify` of a Date cost the gateway about 3 us a row, twenty times a number's.
const eventColumns: ReadonlyArray<readonly [string, string, (e: UsageEvent, ids: LabelIds) => unknown]> = [
  ["occurred_at", "to_timestamp(el::float8 / 1000)", (e) => e.occurredAt],
  ["project_seq", "el::integer", (e) => e.projectSeq],
  ["key_seq", "el::integer", (e) => e.keySeq],
  ["endpoint", "el::smallint", (e) => usageEndpoints[e.endpoint] ?? null],
  ["requested_model", "el::integer", (e, ids) => ids.model(e.requestedModel)],
  ["used_model", "el::integer", (e, ids) => ids.model(e.usedModel)],
  ["provider", "el::integer", (e, ids) => ids.provider(e.provider)],
  ["status", "el::smallint", (e) => e.status],
  ["cancelled", "el::boolean", (e) => e.cancelled],
  ["streamed", "el::boolean", (e) => e.streamed],
  ["prompt_tokens", "el::integer", (e) => e.promptTokens],
  ["completion_tokens", "el::integer", (e) => e.completionTokens],
  ["cached_tokens", "el::integer", (e) => e.cachedTokens],
  ["cache_write_tokens", "el::integer", (e) => e.cacheWriteTokens],
  ["units", "el::real", (e) => e.units],
  ["latency_ms", "el::integer", (e) => Math.round(e.latencyMs)],
  ["ttft_ms", "el::integer", (e) => (e.ttftMs === null ? null : Math.round(e.ttftMs))],
  ["attempts", "el::smallint", (e) => Math.max(1, e.attempts.length)],
  ["cost_nano_usd", "el::bigint", (e) => e.costNanoUsd],
  ["request_id", "el::text", (e) => e.requestId],
  ["detail", "el::jsonb", (e) => detailOf(e)],
  ["trace_id", "el::text", (e) => e.traceId ?? null]
]

/**
 * One batch of rows (one JSON parameter: an array of arrays) into `usage_events`. One parameter
 * per batch instead of one bind parameter per value: the database unpacks it in a single pass,
 * about half the cost per row of a VALUES list. `->>` reads an element as text (a JSON null as
 * SQL NULL) and the column's reading (a cast, as the column's input would parse it) takes it from there.
 */
const rowsInsert = `INSERT INTO usage_events (${eventColumns.map(([name]) => name).join(", ")}) SELECT ${
  eventColumns.map(([, read], i) => read.replace("el", `(r->>${i})`)).join(", ")
} FROM jsonb_array_elements($1::jsonb) AS r`

/**
 * The same, skipping each row whose request id is already there (a replayed spill, a retried
 * batch whose commit went through). Only after `rowsInsert` met such a row: checking every row
 * for a conflict first cost PGlite about a third of a row's insert (26 against 17 us).
 */
const rowsInsertSkippingWritten = `${rowsInsert} ON CONFLICT DO NOTHING`

const isUniqueViolation = (error: SqlError.SqlError): boolean => error.reason._tag === "UniqueViolation"

/**
 * Only what is unusual carries detail: more than one attempt, estimated tokens, the error the
 * client got, figures normalisation changed (`raw`, as received), the dialect when not chat
 * completions and the translation report when something was dropped or rewritten.
 */
const detailOf = (e: UsageEvent) => {
  const many = e.attempts.length > 1
  if (
    !many && e.usageEstimated !== true && e.error === undefined && e.raw === undefined && e.dialect === undefined &&
    e.translation === undefined
  ) return null
  return {
    ...(many ? { attempts: e.attempts } : {}),
    ...(e.dialect === undefined ? {} : { dialect: e.dialect }),
    ...(e.translation === undefined ? {} : { translation: e.translation }),
    ...(e.usageEstimated === true ? { usage_estimated: true } : {}),
    ...(e.error === undefined ? {} : { error: e.error }),
    ...(e.raw === undefined ? {} : { raw: e.raw })
  }
}

const insertedIds = `SELECT coalesce(json_agg(request_id), '[]'::json)::text AS ids FROM inserted`

/** The request ids of `insertedIds`' one row. */
const idsOf = (answer: ReadonlyArray<{ readonly ids: string }>): ReadonlyArray<string> => {
  const ids: unknown = JSON.parse(answer[0]?.ids ?? "[]")
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []
}

/** The settlements of billed events, of those whose request id is in `inserted` when given. */
const settlementsOf = (events: ReadonlyArray<UsageEvent>, inserted: ReadonlySet<string> | undefined): Array<Settlement> =>
  events.flatMap((e) =>
    e.settlement === undefined || (inserted !== undefined && !inserted.has(e.requestId))
      ? []
      : [{ ...e.settlement, requestId: e.requestId, cost: BigInt(Math.max(0, Math.round(e.costNanoUsd))) }]
  )

/** Longest reason kept for a dead letter (a database message may quote the refused value). */
const maxReasonLength = 2000

/**
 * The SQL of the ledger: one batch of events into `usage_events` (names as `usage_labels` ids,
 * rows skipped when their request id is already there), and one refused event into
 * `usage_dead_letters`. Retrying, splitting and counting are the caller's (UsageFlusher.ts).
 */
export const makeUsageWriter = (sql: SqlClient.SqlClient) => {
  const labels = new Map<string, number>()
  const ensuredMonths = new Set<string>()

  const labelIds = (kind: string, names: ReadonlyArray<string>) =>
    Effect.gen(function* () {
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

  /** Writes one batch in one statement: all of it or, when the database refuses, none of it. */
  const insert = (batch: ReadonlyArray<UsageEvent>): Effect.Effect<void, SqlError.SqlError> =>
    // On embedded storage a batch takes its turn of the one session whole, so that neither its
    // statements nor its transaction interleave with a billing transaction.
    exclusively(sql, Effect.gen(function* () {
      if (batch.length === 0) return
      yield* ensureMonthlyPartitions(sql, ensuredMonths, batch.map((e) => e.occurredAt))
      const model = yield* labelIds("model", batch.flatMap((e) => [e.requestedModel, e.usedModel].filter((m) => m !== null)))
      const provider = yield* labelIds("provider", batch.flatMap((e) => (e.provider === null ? [] : [e.provider])))
      const ids: LabelIds = { model, provider }
      const rows = batch.map((e) => eventColumns.map(([, , value]) => value(e, ids)))
      const json = JSON.stringify(rows)
      const billed = batch.filter((e) => e.settlement !== undefined)
      // Billed events: their settlements in the same transaction as their usage rows, so the two
      // are durable together, and only for rows this transaction inserted, so a batch written
      // again after a lost answer settles nothing twice. `rowsInsert` inserts every row or fails
      // (and the transaction with it): then all of them are settled. The second try reports
      // which rows it inserted, as one JSON array in one row (`insertedIds`; a row each cost
      // the embedded database's socket a write and the gateway a read and a parse per request).
      const [all, skipping] = billed.length === 0
        ? [Effect.asVoid(sql.unsafe(rowsInsert, [json])), Effect.asVoid(sql.unsafe(rowsInsertSkippingWritten, [json]))]
        : [
          transactionInTurn(
            sql,
            Effect.flatMap(sql.unsafe(rowsInsert, [json]), () => settleMany(sql, settlementsOf(billed, undefined), Date.now()))
          ),
          transactionInTurn(
            sql,
            Effect.flatMap(sql.unsafe<{ ids: string }>(`WITH inserted AS (${rowsInsertSkippingWritten} RETURNING request_id) ${insertedIds}`, [json]), (answer) =>
              settleMany(sql, settlementsOf(billed, new Set(idsOf(answer))), Date.now()))
          )
        ]
      // A statement (or transaction) that fails writes nothing, so the batch is simply written
      // again, skipping what is already there.
      yield* Effect.catchIf(all, isUniqueViolation, () => skipping)
    }))

  /**
   * Keeps an event the database refused, with the reason. The event is stored as JSON text:
   * `JSON.stringify` escapes every control character and lone surrogate, so this row is always
   * storable whatever made the other one fail.
   */
  const deadLetter = (event: UsageEvent, reason: string): Effect.Effect<void, SqlError.SqlError> => {
    const kept = sql<{ request_id: string }>`INSERT INTO usage_dead_letters ${sql.insert({
      request_id: cleanText(event.requestId, 128),
      reason: cleanText(reason, maxReasonLength),
      event: JSON.stringify(event)
    })} ON CONFLICT (request_id) DO NOTHING RETURNING request_id`
    if (event.settlement === undefined) return Effect.asVoid(kept)
    // The provider billed the call whatever the usage row's fate: settled with the dead letter.
    return transaction(sql, Effect.flatMap(kept, (rows) => settleMany(sql, rows.length === 0 ? [] : settlementsOf([event], undefined), Date.now())))
  }

  return { insert, deadLetter }
}

export type UsageWriter = ReturnType<typeof makeUsageWriter>
