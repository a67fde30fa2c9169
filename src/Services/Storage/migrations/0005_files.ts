import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/** Metadata of uploaded files; the bytes live in the FileStore under `storage_key`. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE files (
    id text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id text,
    filename text NOT NULL,
    purpose text NOT NULL,
    bytes bigint NOT NULL,
    content_type text NOT NULL,
    sha256 text NOT NULL,
    status text NOT NULL,
    status_details text,
    storage_key text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz
  )`
  yield* sql`CREATE INDEX files_project_created_idx ON files (project_id, created_at, id)`
  yield* sql`CREATE INDEX files_expires_idx ON files (expires_at) WHERE expires_at IS NOT NULL`
})
