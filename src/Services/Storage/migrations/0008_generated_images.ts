import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Images handed out as links (`response_format: url`): the bytes live in the FileStore under
 * `storage_key`; a row and its bytes are deleted once `expires_at` has passed.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE generated_images (
    id text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    storage_key text NOT NULL,
    content_type text NOT NULL,
    bytes bigint NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX generated_images_expires_idx ON generated_images (expires_at)`
})
