import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ExtractedDocument } from "../../Domain/ExtractedDocument.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { type Detection, detectFormat } from "./Extraction/DetectFormat.ts"
import { detectInPlaceBytes, detectJob } from "./Extraction/DetectJob.ts"
import { documentTypes } from "./Extraction/DocumentTypes.ts"
import { type CachedOutcome, type ExtractionCache, makeExtractionCache } from "./Extraction/ExtractionCache.ts"
import { failureCodes, type FailureInfo } from "./Extraction/ExtractionFailure.ts"
import type { ExtractionOutcome } from "./Extraction/ExtractionJob.ts"
import type { ExtractionLimits } from "./Extraction/ExtractionLimits.ts"
import { makeLimitVerdicts } from "./Extraction/LimitVerdicts.ts"
import type { WorkerJob } from "./Extraction/WorkerJob.ts"
import { makeWorkerPool, type SlotRunner, type WorkerPoolStats } from "./Extraction/WorkerPool.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

export interface ExtractInput {
  readonly bytes: Uint8Array
  /** The client's name for the file: its extension helps detection, and every error names it. */
  readonly filename: string
  /** The client's declared type; consulted only when neither the content nor the extension decides. */
  readonly mimeType?: string | undefined
}

export interface RenderPagesInput {
  readonly bytes: Uint8Array
  readonly filename: string
  /** Pages wanted; capped by `files.extraction.max_rendered_pages`. */
  readonly maxPages: number
}

/** A 400 naming the file, with a stable code per failure kind. */
export const extractionError = (filename: string, failure: FailureInfo): GatewayError =>
  GatewayError.invalid(`${filename.trim() === "" ? "file" : filename}: ${failure.reason}`, undefined, failureCodes[failure.kind])

const sha256 = (bytes: Uint8Array) =>
  // WebCrypto hashes on the libuv thread pool, keeping a 100 MB upload off the event loop.
  Effect.promise(() => crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)).pipe(
    Effect.map((digest) => new Uint8Array(digest))
  )

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

/** Verdicts that depend on the limits rather than on the bytes alone. */
const isLimitVerdict = (failure: FailureInfo) => failure.kind === "timeout" || failure.kind === "too_complex"

const make = (cache: ExtractionCache | undefined) =>
  Effect.gen(function* () {
    const settings = (yield* GatewayConfigFile).config.files.extraction
    const limits: ExtractionLimits = {
      zip: { maxBytes: settings.max_unzipped_mb * 1024 * 1024, maxRatio: settings.max_zip_ratio, maxEntries: 10_000 },
      maxPages: settings.max_pages
    }
    const pool = yield* makeWorkerPool({
      workers: settings.workers,
      timeoutMs: settings.timeout_ms,
      maxMemoryMb: settings.max_memory_mb
    })
    const verdicts = makeLimitVerdicts({ maxEntries: 10_000, ttlMs: 60 * 60 * 1000, now: Date.now })

    const fromCache = (filename: string, outcome: CachedOutcome) =>
      outcome._tag === "Extracted"
        ? Effect.succeed<ExtractedDocument>({ ...outcome.content, cached: true })
        : Effect.fail(extractionError(filename, { kind: outcome.kind, reason: outcome.reason }))

    /** Runs a task unless this content already overran a bound here; remembers it when it does. */
    const runRemembering = (run: SlotRunner, key: string, task: Parameters<SlotRunner>[0], timeoutMs?: number): Effect.Effect<ExtractionOutcome> => {
      const known = verdicts.recall(key)
      if (known !== undefined) return Effect.succeed({ _tag: "Failed", failure: known })
      return Effect.tap(run(task, timeoutMs === undefined ? undefined : { timeoutMs }), (outcome) =>
        Effect.sync(() => {
          if (outcome._tag === "Failed" && isLimitVerdict(outcome.failure)) verdicts.remember(key, outcome.failure)
        })
      )
    }

    /** Small documents are detected in place; a large one's text decoding runs in the slot's worker. */
    const detect = (run: SlotRunner, input: ExtractInput): Effect.Effect<Detection> => {
      if (input.bytes.length <= detectInPlaceBytes) return Effect.promise(() => detectFormat(input))
      const job = { bytes: input.bytes, filename: input.filename, mimeType: input.mimeType }
      return Effect.flatMap(run({ _tag: "Job", module: detectJob.module, input: job }), (outcome) =>
        outcome._tag === "Computed"
          ? Effect.succeed(outcome.value as Detection)
          : outcome._tag === "Failed"
          ? Effect.succeed<Detection>({ _tag: "Rejected", failure: outcome.failure })
          : Effect.die(new Error(`unexpected detection outcome ${outcome._tag}`))
      )
    }

    const extractInSlot = (run: SlotRunner, input: ExtractInput) =>
      Effect.gen(function* () {
        const detection = yield* detect(run, input)
        yield* Effect.annotateCurrentSpan({ "document.detected": detection._tag === "Binary" ? detection.format : detection._tag })
        switch (detection._tag) {
          case "Rejected":
            return yield* extractionError(input.filename, detection.failure)
          case "Text":
            // Decoding is cheaper than a cache round trip, so text never touches the pool or the cache.
            return {
              format: "text",
              mimeType: detection.mimeType,
              text: detection.text,
              pages: null,
              pageTexts: null,
              scanned: false,
              scannedPages: [],
              cached: false
            } satisfies ExtractedDocument
          case "Binary":
            break
        }
        const key = { sha256: yield* sha256(input.bytes), reader: detection.format }
        const remembered = cache === undefined ? undefined : yield* cache.lookup(key)
        if (remembered !== undefined) return yield* fromCache(input.filename, remembered)

        const task = { _tag: "Extract", format: detection.format, bytes: input.bytes, limits } as const
        const outcome = yield* runRemembering(run, `${key.reader}:${hex(key.sha256)}`, task)
        switch (outcome._tag) {
          case "Extracted":
            if (cache !== undefined) yield* cache.store(key, { _tag: "Extracted", content: outcome.content }, input.bytes.length)
            return { ...outcome.content, cached: false } satisfies ExtractedDocument
          case "Failed": {
            const { kind, reason } = outcome.failure
            if (outcome.detail !== undefined) yield* Effect.logDebug("document rejected", { reason, detail: outcome.detail })
            // A damaged or encrypted file gives the same verdict every time: remember it so it is not parsed again.
            if (cache !== undefined && (kind === "corrupt" || kind === "unsupported")) {
              yield* cache.store(key, { _tag: "Failed", kind, reason }, input.bytes.length)
            }
            return yield* extractionError(input.filename, outcome.failure)
          }
          case "Rendered":
          case "Broken":
          case "Computed":
            return yield* Effect.die(new Error(`unexpected extraction outcome ${outcome._tag}`))
        }
      })

    const extractFrom = Effect.fn("Extractor.extractFrom")(function* <E>(load: Effect.Effect<ExtractInput, E>) {
      return yield* pool.reserve((run) =>
        Effect.flatMap(load, (input) => Effect.map(extractInSlot(run, input), (document) => ({ document, input })))
      )
    })

    const extract = (input: ExtractInput) => Effect.map(extractFrom(Effect.succeed(input)), ({ document }) => document)

    const renderPdfPages = Effect.fn("Extractor.renderPdfPages")(function* (input: RenderPagesInput) {
      const maxPages = Math.min(Math.floor(input.maxPages), settings.max_rendered_pages)
      const detection = yield* Effect.promise(() => detectFormat(input))
      if (detection._tag === "Rejected") return yield* extractionError(input.filename, detection.failure)
      if (detection._tag !== "Binary" || detection.format !== "pdf") {
        const what = detection._tag === "Text" ? "a text file" : detection.format === "ole" ? "an Office file" : documentTypes[detection.format].label
        return yield* extractionError(input.filename, {
          kind: "unsupported",
          reason: `page images can be made only from PDF documents, and this is ${what}`
        })
      }
      if (maxPages < 1) return []
      const outcome = yield* pool.run({ _tag: "Render", bytes: input.bytes, maxPages })
      switch (outcome._tag) {
        case "Rendered":
          return outcome.images
        case "Failed":
          return yield* extractionError(input.filename, outcome.failure)
        case "Extracted":
        case "Broken":
        case "Computed":
          return yield* Effect.die(new Error(`unexpected extraction outcome ${outcome._tag}`))
      }
    })

    const runJob = <I, O>(job: WorkerJob<I, O>, input: I, options: JobOptions): Effect.Effect<O, GatewayError> =>
      pool
        .reserve((run) =>
          Effect.flatMap(options.content === undefined ? Effect.succeed(undefined) : sha256(options.content), (digest) => {
            const task = { _tag: "Job", module: job.module, input } as const
            return digest === undefined ? run(task, { timeoutMs: options.timeoutMs }) : runRemembering(run, `${job.name}:${hex(digest)}`, task, options.timeoutMs)
          })
        )
        .pipe(
          Effect.flatMap((outcome) => {
            if (outcome._tag === "Computed") return Effect.succeed(outcome.value as O)
            if (outcome._tag === "Failed") {
              return Effect.fail(options.label === undefined ? GatewayError.invalid(outcome.failure.reason, undefined, failureCodes[outcome.failure.kind]) : extractionError(options.label, outcome.failure))
            }
            return Effect.die(new Error(`unexpected outcome ${outcome._tag} of job ${job.name}`))
          }),
          Effect.withSpan("Extractor.runJob", { attributes: { "job.name": job.name } })
        )

    return Extractor.of({ extract, extractFrom, renderPdfPages, runJob, workers: pool.stats })
  })

export interface JobOptions {
  /** Names the content in errors ("<label>: the content is nested too deeply..."); without it the reason stands alone. */
  readonly label?: string | undefined
  /** Bytes the input was made from: an overrun is remembered for them (and refused at once next time). */
  readonly content?: Uint8Array | undefined
  /** Shorter than `files.extraction.timeout_ms` when the caller's own budget is. */
  readonly timeoutMs?: number | undefined
}

/**
 * Turns uploaded documents into text for models, PDF pages into images for vision models, and
 * runs every other parse of untrusted content (web pages, sitemaps) off the event loop. Parsing
 * runs in a pool of worker threads bounded in time and memory (`files.extraction`); a slot is
 * taken before a document is loaded; results are cached by content hash in the database.
 */
export class Extractor extends Context.Service<
  Extractor,
  {
    /** 400 (`file_empty`, `file_corrupt`, `file_unsupported`, `file_type_mismatch`, `file_extraction_timeout`, `file_too_complex`) naming the file. */
    readonly extract: (input: ExtractInput) => Effect.Effect<ExtractedDocument, GatewayError>
    /** `extract`, loading the document only once a worker slot is held; returns what was loaded too. */
    readonly extractFrom: <E>(
      load: Effect.Effect<ExtractInput, E>
    ) => Effect.Effect<{ readonly document: ExtractedDocument; readonly input: ExtractInput }, GatewayError | E>
    /** PNG bytes of the first pages of a PDF, at most `max_rendered_pages`. */
    readonly renderPdfPages: (input: RenderPagesInput) => Effect.Effect<ReadonlyArray<Uint8Array>, GatewayError>
    /** A parse of untrusted content in a worker; a 400 naming `label` when the content overruns a bound or is unreadable. */
    readonly runJob: <I, O>(job: WorkerJob<I, O>, input: I, options: JobOptions) => Effect.Effect<O, GatewayError>
    /** Tasks run in worker threads, and threads alive, idle and terminated so far (for health checks and tests). */
    readonly workers: Effect.Effect<WorkerPoolStats>
  }
>()("gateway/Extractor") {
  /** With the shared cache; needs `SqlClient` (migrated) and `GatewayConfigFile`. */
  static readonly layer = Layer.effect(
    Extractor,
    Effect.flatMap(makeExtractionCache, (cache) => make(cache))
  )
  /** Without any cache: for unit tests and tools that have no database. */
  static readonly layerWithoutCache = Layer.effect(Extractor, make(undefined))
}
