import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Strict translation per key and per project: a request of such a key (or of any key of such a
 * project) is refused when the provider serving it would drop one of its fields.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE api_keys ADD COLUMN strict_translation boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE projects ADD COLUMN strict_translation boolean NOT NULL DEFAULT false`
})
