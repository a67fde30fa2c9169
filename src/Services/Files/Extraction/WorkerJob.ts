/**
 * A parse of untrusted content that runs in an extraction worker, typed by what goes in and what
 * comes out. `module` is a file of the gateway's own code (never anything a client names) that
 * exports `run(input): O | Promise<O>`; it may throw an `ExtractionFailure` for what is the
 * content's fault. Input and output cross threads by structured clone.
 */
export interface WorkerJob<I, O> {
  readonly module: string
  /** For spans and logs: `html`, `sitemap`. */
  readonly name: string
  /** Carries the types only; never set. */
  readonly types?: (input: I) => O
}

export const workerJob = <I, O>(module: URL, name: string): WorkerJob<I, O> => ({ module: module.href, name })
