import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ExtractedDocument } from "../../Domain/ExtractedDocument.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { detectFormat } from "./Extraction/DetectFormat.ts"
import { documentTypes } from "./Extraction/DocumentTypes.ts"
import { type CachedOutcome, type ExtractionCache, makeExtractionCache } from "./Extraction/ExtractionCache.ts"
import { failureCodes, type FailureInfo } from "./Extraction/ExtractionFailure.ts"
import { makeWorkerPool, type WorkerPoolStats } from "./Extraction/WorkerPool.ts"
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

const make = (cache: ExtractionCache | undefined) =>
  Effect.gen(function* () {
    const settings = (yield* GatewayConfigFile).config.files.extraction
    const pool = yield* makeWorkerPool({
      workers: settings.workers,
      timeoutMs: settings.timeout_ms,
      maxMemoryMb: settings.max_memory_mb
    })

    const fromCache = (filename: string, outcome: CachedOutcome) =>
      outcome._tag === "Extracted"
        ? Effect.succeed<ExtractedDocument>({ ...outcome.content, cached: true })
        : Effect.fail(extractionError(filename, { kind: outcome.kind, reason: outcome.reason }))

    const extract = Effect.fn("Extractor.extract")(function* (input: ExtractInput) {
      const detection = yield* Effect.promise(() => detectFormat(input))
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

      const outcome = yield* pool.run({ _tag: "Extract", format: detection.format, bytes: input.bytes })
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
          return yield* Effect.die(new Error(`unexpected extraction outcome ${outcome._tag}`))
      }
    })

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
          return yield* Effect.die(new Error(`unexpected extraction outcome ${outcome._tag}`))
      }
    })

    return Extractor.of({ extract, renderPdfPages, workers: pool.stats })
  })

/**
 * Turns uploaded documents into text for models, and PDF pages into images for vision
 * models. Parsing runs in a pool of worker threads bounded in time and memory
 * (`files.extraction`); results are cached by content hash in the database.
 */
export class Extractor extends Context.Service<
  Extractor,
  {
    /** 400 (`file_empty`, `file_corrupt`, `file_unsupported`, `file_type_mismatch`, `file_extraction_timeout`, `file_too_complex`) naming the file. */
    readonly extract: (input: ExtractInput) => Effect.Effect<ExtractedDocument, GatewayError>
    /** PNG bytes of the first pages of a PDF, at most `max_rendered_pages`. */
    readonly renderPdfPages: (input: RenderPagesInput) => Effect.Effect<ReadonlyArray<Uint8Array>, GatewayError>
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
