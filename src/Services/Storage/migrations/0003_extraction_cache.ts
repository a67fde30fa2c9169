import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Text extracted from documents, per unique content: one row per (sha256 of the bytes,
 * reader). Shared by every project and instance, since the same bytes always give the same
 * text. `result` is the JSON of the outcome (the text, or a damaged-file verdict);
 * `extractor_version` lets a newer extractor ignore rows written by an older one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE extraction_cache (
    sha256 bytea NOT NULL,
    reader text NOT NULL,
    extractor_version integer NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('extracted', 'failed')),
    result text NOT NULL,
    content_bytes bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (sha256, reader)
  )`
  yield* sql`CREATE INDEX extraction_cache_created_idx ON extraction_cache (created_at)`
})
