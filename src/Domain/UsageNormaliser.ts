import { cleanText, FigureChanges, isBoundedCount, isCleanText, rawOf, usageBounds } from "./UsageBounds.ts"
import type { UsageAttempt, UsageEvent } from "./UsageEvent.ts"

/**
 * The ledger's validation of a whole usage event (token figures are normalised first by
 * `normaliseUsage` in Usage.ts, before pricing): within `usageBounds`, every change recorded.
 */

const normaliseAttempt = (changes: FigureChanges, attempt: UsageAttempt, i: number): UsageAttempt => ({
  provider: changes.name(`attempts[${i}].provider`, attempt.provider, usageBounds.maxNameLength),
  model: changes.name(`attempts[${i}].model`, attempt.model, usageBounds.maxNameLength),
  outcome: attempt.outcome,
  ...(attempt.status === undefined ? {} : { status: changes.count(`attempts[${i}].status`, attempt.status, 999) }),
  ms: changes.count(`attempts[${i}].ms`, attempt.ms, usageBounds.maxMs)
})

const optionalName = (changes: FigureChanges, field: string, value: string | null) =>
  value === null ? null : changes.name(field, value, usageBounds.maxNameLength)

/** A timestamp the database can store and partition (years 1970 to 9999); else now. */
const occurredAt = (changes: FigureChanges, value: number): number => {
  if (Number.isFinite(value) && value >= 0 && value < 253_402_300_800_000) return Math.trunc(value)
  changes.raw["occurred_at"] = rawOf(value)
  return Date.now()
}

const cleanOrNull = (text: string | null | undefined) => text == null || isCleanText(text, usageBounds.maxNameLength)

/** The usual event, on every request: already inside every bound, so it is kept as it is. */
const isNormal = (e: UsageEvent): boolean => {
  const { maxTokens, maxMs } = usageBounds
  return Number.isInteger(e.occurredAt) && e.occurredAt >= 0 && e.occurredAt < 253_402_300_800_000 &&
    isCleanText(e.requestId, usageBounds.maxRequestIdLength) && isBoundedCount(e.projectSeq, 2_147_483_647) &&
    isBoundedCount(e.keySeq, 2_147_483_647) && cleanOrNull(e.requestedModel) && cleanOrNull(e.usedModel) &&
    cleanOrNull(e.provider) && isBoundedCount(e.status, 999) && isBoundedCount(e.promptTokens, maxTokens) &&
    isBoundedCount(e.completionTokens, maxTokens) && isBoundedCount(e.cachedTokens, maxTokens) &&
    isBoundedCount(e.cacheWriteTokens, maxTokens) && isBoundedCount(e.units, usageBounds.maxUnits) &&
    isBoundedCount(e.latencyMs, maxMs) && (e.ttftMs === null || isBoundedCount(e.ttftMs, maxMs)) &&
    isBoundedCount(e.costNanoUsd, usageBounds.maxCostNanoUsd) && e.attempts.length <= usageBounds.maxAttemptsKept &&
    e.attempts.every((a) =>
      cleanOrNull(a.provider) && cleanOrNull(a.model) && isBoundedCount(a.ms, maxMs) && (a.status === undefined || isBoundedCount(a.status, 999))) &&
    (e.error === undefined || (cleanOrNull(e.error.type) && cleanOrNull(e.error.code) && cleanOrNull(e.error.kind)))
}

/**
 * The event as the ledger stores it: names cleaned and bounded, every figure a whole number
 * inside its column, and `raw` holding what was received wherever something changed (merged
 * with `raw` figures the meter already recorded). An event already normal is returned as is.
 */
export const normaliseUsageEvent = (event: UsageEvent): UsageEvent => {
  if (isNormal(event)) return event
  const changes = new FigureChanges()
  const { maxTokens, maxMs, maxNameLength } = usageBounds
  const attempts = event.attempts.slice(0, usageBounds.maxAttemptsKept).map((a, i) => normaliseAttempt(changes, a, i))
  if (event.attempts.length > usageBounds.maxAttemptsKept) changes.raw["attempts"] = event.attempts.length
  const normal: UsageEvent = {
    ...event,
    occurredAt: occurredAt(changes, event.occurredAt),
    requestId: changes.name("request_id", event.requestId, usageBounds.maxRequestIdLength),
    projectSeq: changes.count("project_seq", event.projectSeq, 2_147_483_647),
    keySeq: changes.count("key_seq", event.keySeq, 2_147_483_647),
    requestedModel: optionalName(changes, "requested_model", event.requestedModel),
    usedModel: optionalName(changes, "used_model", event.usedModel),
    provider: optionalName(changes, "provider", event.provider),
    status: changes.count("status", event.status, 999),
    promptTokens: changes.count("prompt_tokens", event.promptTokens, maxTokens),
    completionTokens: changes.count("completion_tokens", event.completionTokens, maxTokens),
    cachedTokens: changes.count("cached_tokens", event.cachedTokens, maxTokens),
    cacheWriteTokens: changes.count("cache_write_tokens", event.cacheWriteTokens, maxTokens),
    units: changes.count("units", event.units, usageBounds.maxUnits, Math.ceil),
    latencyMs: changes.count("latency_ms", event.latencyMs, maxMs),
    ttftMs: event.ttftMs === null ? null : changes.count("ttft_ms", event.ttftMs, maxMs),
    attempts,
    costNanoUsd: changes.count("cost_nano_usd", event.costNanoUsd, usageBounds.maxCostNanoUsd),
    ...(event.error === undefined
      ? {}
      : {
        error: {
          type: cleanText(event.error.type, maxNameLength),
          ...(event.error.code === undefined ? {} : { code: cleanText(event.error.code, maxNameLength) }),
          ...(event.error.kind === undefined ? {} : { kind: cleanText(event.error.kind, maxNameLength) })
        }
      })
  }
  // Rounding a sub-millisecond latency is not news: only larger changes are kept as raw figures.
  for (const field of ["latency_ms", "ttft_ms"]) {
    const raw = changes.raw[field]
    if (typeof raw === "number" && raw >= 0 && raw <= maxMs) delete changes.raw[field]
  }
  if (!changes.changed) return normal
  return { ...normal, raw: { ...event.raw, ...changes.raw } }
}
