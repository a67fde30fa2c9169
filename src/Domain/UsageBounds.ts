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
const isControl = (c: number) => c <= 0x1f || (c >= 0x7f && c <= 0x9f)
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff

/** How many control characters `text` holds. */
export const countControls = (text: string): number => {
  let n = 0
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) n++
  return n
}

/**
 * `text` without control characters, with lone surrogates (half a pair: not valid UTF-8, so Postgres
 * refuses it in JSON and text) replaced by U+FFFD, cut to at most `max` UTF-16 units without
 * splitting a pair. One pass that stops once `max` units are kept, so a hostile megabyte costs
 * no more than its scan.
 */
export const cleanText = (text: string, max: number): string => {
  let out = ""
  let changed = false
  for (let i = 0; i < text.length && out.length < max; i++) {
    const c = text.charCodeAt(i)
    if (isControl(c)) {
      changed = true
    } else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      if (out.length + 2 > max) break
      out += text.slice(i, i + 2)
      i++
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += "\ufffd"
      changed = true
    } else {
      out += text[i]
    }
  }
  return changed || out.length < text.length ? out : text
}

// Anything `cleanText` might change: controls and every surrogate (a valid pair only costs the slow path).
const unsafeText = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/

/** True when `cleanText(text, max)` would return `text` unchanged (checked without allocating). */
export const isCleanText = (text: string, max: number): boolean => text.length <= max && !unsafeText.test(text)

/** True when `boundedCount(value, max)` would return `value` unchanged. */
export const isBoundedCount = (value: number, max: number): boolean => Number.isInteger(value) && value >= 0 && value <= max

/** A whole count in [0, max]: fractions rounded (`ceil` for units billed per started unit). */
export const boundedCount = (value: number, max: number, round: (n: number) => number = Math.round): number => {
  if (!Number.isFinite(value)) return value === Number.POSITIVE_INFINITY ? max : 0
  return Math.min(max, Math.max(0, round(value)))
}

export const rawOf = (value: number): RawFigure => (Number.isFinite(value) ? value : String(value))

/** Collects what was changed while normalising one event or one usage report. */
export class FigureChanges {
  readonly raw: Record<string, RawFigure> = {}
  count(field: string, value: number, max: number, round?: (n: number) => number): number {
    const bounded = boundedCount(value, max, round)
    if (bounded !== value) this.raw[field] = rawOf(value)
    return bounded
  }
  name(field: string, value: string, max: number): string {
    const cleaned = cleanText(value, max)
    if (cleaned !== value) this.raw[field] = { chars: value.length, control_chars: countControls(value) }
    return cleaned
  }
  get changed(): boolean {
    return Object.keys(this.raw).length > 0
  }
}
