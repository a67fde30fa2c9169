import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Responses API responses kept for `GET /v1/responses/{id}` and `previous_response_id`, per
 * project, until `expires_at`. `response` is the response object and `items` the conversation
 * before it (instructions excluded), both as JSON text: text keeps any string a model wrote,
 * which jsonb would refuse (a NUL). Output items are also indexed by their id, for input items
 * of type `item_reference`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE stored_responses (
    id text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    response text NOT NULL,
    items text NOT NULL
  )`
  yield* sql`CREATE INDEX stored_responses_expires_idx ON stored_responses (expires_at)`
  yield* sql`CREATE TABLE stored_response_items (
    project_id text NOT NULL,
    item_id text NOT NULL,
    response_id text NOT NULL REFERENCES stored_responses (id) ON DELETE CASCADE,
    item text NOT NULL,
    PRIMARY KEY (project_id, item_id)
  )`
  yield* sql`CREATE INDEX stored_response_items_response_idx ON stored_response_items (response_id)`
})
