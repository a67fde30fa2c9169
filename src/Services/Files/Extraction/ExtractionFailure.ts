/**
 * Why a file cannot be turned into text. These classes match the fixture corpus's
 * `expected_error` classes, plus the two resource bounds of the extraction workers.
 * This module is loaded inside worker threads too, so it must stay free of Effect and of
 * non-erasable TypeScript.
 */
export type FailureKind = "corrupt" | "unsupported" | "empty" | "mismatch" | "timeout" | "too_complex"

/** The stable `error.code` a client sees for each kind. */
export const failureCodes: Readonly<Record<FailureKind, string>> = {
  corrupt: "file_corrupt",
  unsupported: "file_unsupported",
  empty: "file_empty",
  mismatch: "file_type_mismatch",
  timeout: "file_extraction_timeout",
  too_complex: "file_too_complex"
}

/** A plain, structured-clone-safe description of a failure (worker messages, cache rows). */
export interface FailureInfo {
  readonly kind: FailureKind
  /** Finishes the sentence "<filename>: ..." */
  readonly reason: string
}

/** Thrown by the format readers; the worker turns it into a `FailureInfo` message. */
export class ExtractionFailure extends Error {
  readonly kind: FailureKind
  readonly reason: string
  /** What the underlying library said, for the logs; never shown to clients nor cached. */
  readonly detail: string | undefined

  constructor(kind: FailureKind, reason: string, detail?: string) {
    super(reason)
    this.name = "ExtractionFailure"
    this.kind = kind
    this.reason = reason
    this.detail = detail
  }

  get info(): FailureInfo {
    return { kind: this.kind, reason: this.reason }
  }
}

export const fail = (kind: FailureKind, reason: string): never => {
  throw new ExtractionFailure(kind, reason)
}

/**
 * Runs a third-party parser. Anything it throws that is not already classified means the
 * library could not make sense of the bytes, so it is reported as a damaged file of the
 * format we expected; `detail` keeps the library's own words for the logs only.
 */
export const guard = async <A>(what: string, run: () => Promise<A> | A): Promise<A> => {
  try {
    return await run()
  } catch (cause) {
    if (cause instanceof ExtractionFailure) throw cause
    throw new ExtractionFailure(
      "corrupt",
      `the ${what} could not be read; it is damaged or not a valid ${what}`,
      cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
    )
  }
}
