import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"

/** Bump when extraction output changes, so rows written by an older extractor are re-extracted. */
export const extractorVersion = 1

/**
 * What a cache row remembers. Only verdicts that depend on the bytes alone are stored: the
 * text, or "damaged" / "unsupported feature" (an encrypted file). Timeouts and memory
 * overruns depend on settings and load, and name-based verdicts (mismatch) are cheap to
 * recompute, so neither is ever cached.
 */
export const CachedOutcome = Schema.Union([
  Schema.TaggedStruct("Extracted", { content: ExtractedContent }),
  Schema.TaggedStruct("Failed", { kind: Schema.Literals(["corrupt", "unsupported"]), reason: Schema.String })
])
export type CachedOutcome = typeof CachedOutcome.Type

const ResultJson = Schema.fromJsonString(CachedOutcome)
const decodeResult = Schema.decodeUnknownEffect(ResultJson)
const encodeResult = Schema.encodeEffect(ResultJson)

export interface CacheKey {
  readonly sha256: Uint8Array
  /** The reader the bytes went to (`pdf`, `ole`, `pages`, ...): the same bytes may be read as one bundle type or another. */
  readonly reader: string
}

export interface ExtractionCache {
  /** The remembered outcome, or undefined on a miss. Never fails: the cache only saves work. */
  readonly lookup: (key: CacheKey) => Effect.Effect<CachedOutcome | undefined>
  /** One upsert statement, so a row is either absent or complete. Never fails. */
  readonly store: (key: CacheKey, outcome: CachedOutcome, contentBytes: number) => Effect.Effect<void>
}

/**
 * The shared extraction cache in the gateway database. Database trouble never fails an
 * extraction: a failed read is a miss and a failed write is skipped, both logged.
 */
export const makeExtractionCache = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const lookup = (key: CacheKey) =>
    Effect.gen(function* () {
      const rows = yield* sql<{ readonly result: string; readonly extractor_version: number }>`SELECT result, extractor_version
        FROM extraction_cache WHERE sha256 = ${Buffer.from(key.sha256)} AND reader = ${key.reader}`
      const row = rows[0]
      if (row === undefined || Number(row.extractor_version) !== extractorVersion) return undefined
      return yield* decodeResult(row.result).pipe(Effect.orElseSucceed(() => undefined))
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning("extraction cache read failed", cause).pipe(Effect.as(undefined))),
      Effect.withSpan("ExtractionCache.lookup")
    )

  const store = (key: CacheKey, outcome: CachedOutcome, contentBytes: number) =>
    Effect.gen(function* () {
      const result = yield* encodeResult(outcome)
      const row = {
        sha256: Buffer.from(key.sha256),
        reader: key.reader,
        extractor_version: extractorVersion,
        outcome: outcome._tag === "Extracted" ? "extracted" : "failed",
        result,
        content_bytes: contentBytes
      }
      yield* sql`INSERT INTO extraction_cache ${sql.insert(row)}
        ON CONFLICT (sha256, reader) DO UPDATE SET extractor_version = EXCLUDED.extractor_version,
          outcome = EXCLUDED.outcome, result = EXCLUDED.result, created_at = now()`
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning("extraction cache write failed", cause)),
      Effect.withSpan("ExtractionCache.store")
    )

  return { lookup, store } satisfies ExtractionCache
})
