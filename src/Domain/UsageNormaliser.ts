import type { Usage } from "./Usage.ts"
import type { UsageAttempt, UsageEvent } from "./UsageEvent.ts"

/**
 * What the usage ledger accepts. Every event is brought inside these bounds before it is queued,
 * so no value a client or an upstream chose (a model name with a NUL byte, a name kilobytes long,
 * 12.5 or 3e9 tokens) can make the database refuse a batch. Figures that had to change are kept
 * as received in the event's `raw` (the `detail.raw` column of the row).
 */
export const usageBounds = {
  /** Model and provider names: configured ids are at most 128 characters; clients may send anything. */
  maxNameLength: 256,
  /** Request ids are the gateway's own (`req_…`, 16 characters); anything longer is cut. */
  maxRequestIdLength: 128,
  /** Largest token figure of one request: far above any context window, well inside a 32-bit column. */
  maxTokens: 100_000_000,
  /** Largest unit figure of one request (seconds of audio, images). */
  maxUnits: 10_000_000,
  /** Milliseconds (latency, time to first token): a 32-bit column. */
  maxMs: 2_147_483_647,
  /** Attempts kept in `detail`; a request makes at most `routing.max_attempts` of them. */
  maxAttemptsKept: 32,
  /** Cost of one request in nano-dollars: the largest integer a JSON number holds exactly. */
  maxCostNanoUsd: Number.MAX_SAFE_INTEGER
} as const

/** The received value of a figure that was changed; non-finite numbers as text (JSON has none). */
export type RawFigure = number | string | { readonly chars: number; readonly control_chars: number }
export type RawFigures = Readonly<Record<string, RawFigure>>

// C0 and C1 controls and DEL: NUL is refused by Postgres text, the others corrupt logs and reports.
const controls = /[\u0000-\u001f\u007f-\u009f]/g

// Half of a surrogate pair on its own: not valid UTF-8, so Postgres refuses it in JSON and text.
const loneSurrogates = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** `text` without control characters or lone surrogates, at most `max` UTF-16 units long. */
export const cleanText = (text: string, max: number): string => {
  let out = text.replace(controls, "")
  if (out.length > max) {
    out = out.slice(0, max)
    // Do not leave half of a surrogate pair at the cut.
    const last = out.charCodeAt(out.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1)
  }
  return out.replace(loneSurrogates, "\ufffd")
}

/** A whole count in [0, max]: fractions rounded (`ceil` for units billed per started unit). */
export const boundedCount = (value: number, max: number, round: (n: number) => number = Math.round): number => {
  if (!Number.isFinite(value)) return value === Number.POSITIVE_INFINITY ? max : 0
  return Math.min(max, Math.max(0, round(value)))
}

const rawOf = (value: number): RawFigure => (Number.isFinite(value) ? value : String(value))

/** Collects what was changed while normalising one event. */
class Changes {
  readonly raw: Record<string, RawFigure> = {}
  count(field: string, value: number, max: number, round?: (n: number) => number): number {
    const bounded = boundedCount(value, max, round)
    if (bounded !== value) this.raw[field] = rawOf(value)
    return bounded
  }
  name(field: string, value: string, max: number): string {
    const cleaned = cleanText(value, max)
    if (cleaned !== value) this.raw[field] = { chars: value.length, control_chars: value.match(controls)?.length ?? 0 }
    return cleaned
  }
  get changed(): boolean {
    return Object.keys(this.raw).length > 0
  }
}

const optionalCount = (changes: Changes, field: string, value: number | undefined, max: number) =>
  value === undefined ? undefined : changes.count(field, value, max)

const isBounded = (n: number | undefined): boolean =>
  n === undefined || (Number.isInteger(n) && n >= 0 && n <= usageBounds.maxTokens)

const normaliseUsageInto = (changes: Changes, usage: Usage): Usage => {
  const max = usageBounds.maxTokens
  const cached = optionalCount(changes, "cached_tokens", usage.cachedTokens, max)
  const written = optionalCount(changes, "cache_write_tokens", usage.cacheWriteTokens, max)
  const reasoning = optionalCount(changes, "reasoning_tokens", usage.reasoningTokens, max)
  const audio = optionalCount(changes, "audio_prompt_tokens", usage.audioPromptTokens, max)
  return {
    promptTokens: changes.count("prompt_tokens", usage.promptTokens, max),
    completionTokens: changes.count("completion_tokens", usage.completionTokens, max),
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(written === undefined ? {} : { cacheWriteTokens: written }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
    ...(audio === undefined ? {} : { audioPromptTokens: audio })
  }
}

/**
 * Provider usage as whole, non-negative, bounded token counts, with the figures that changed as
 * received. Applied before pricing (so cost is computed from what is stored) and before the wire.
 */
export const normaliseUsage = (usage: Usage): { readonly usage: Usage; readonly raw: RawFigures | undefined } => {
  // The usual case, on every response: nothing to change, nothing to allocate.
  if (
    isBounded(usage.promptTokens) && isBounded(usage.completionTokens) && isBounded(usage.cachedTokens) &&
    isBounded(usage.cacheWriteTokens) && isBounded(usage.reasoningTokens) && isBounded(usage.audioPromptTokens)
  ) return { usage, raw: undefined }
  const changes = new Changes()
  const normal = normaliseUsageInto(changes, usage)
  return { usage: changes.changed ? normal : usage, raw: changes.changed ? changes.raw : undefined }
}

const normaliseAttempt = (changes: Changes, attempt: UsageAttempt, i: number): UsageAttempt => ({
  provider: changes.name(`attempts[${i}].provider`, attempt.provider, usageBounds.maxNameLength),
  model: changes.name(`attempts[${i}].model`, attempt.model, usageBounds.maxNameLength),
  outcome: attempt.outcome,
  ...(attempt.status === undefined ? {} : { status: changes.count(`attempts[${i}].status`, attempt.status, 999) }),
  ms: changes.count(`attempts[${i}].ms`, attempt.ms, usageBounds.maxMs)
})

const optionalName = (changes: Changes, field: string, value: string | null) =>
  value === null ? null : changes.name(field, value, usageBounds.maxNameLength)

/** A timestamp the database can store and partition (years 1970 to 9999); else now. */
const occurredAt = (changes: Changes, value: number): number => {
  if (Number.isFinite(value) && value >= 0 && value < 253_402_300_800_000) return Math.trunc(value)
  changes.raw["occurred_at"] = rawOf(value)
  return Date.now()
}

/**
 * The event as the ledger stores it: names cleaned and bounded, every figure a whole number
 * inside its column, and `raw` holding what was received wherever something changed (merged
 * with `raw` figures the meter already recorded). An event already normal is returned as is.
 */
export const normaliseUsageEvent = (event: UsageEvent): UsageEvent => {
  const changes = new Changes()
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
