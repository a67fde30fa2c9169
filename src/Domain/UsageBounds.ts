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
    if (cleaned !== value) this.raw[field] = { chars: value.length, control_chars: value.match(controls)?.length ?? 0 }
    return cleaned
  }
  get changed(): boolean {
    return Object.keys(this.raw).length > 0
  }
}
