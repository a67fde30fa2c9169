import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * A settlement row may settle many requests: the requests a key was admitted from its lease and
 * whose usage rows one batch wrote are settled by one row (`request_id` NULL, `requests` the
 * count). A row per request cost the embedded database about as much as the usage row itself.
 * NULL on every other row: a grant or refund settles nothing, and a settlement row from before
 * this column, or one of a request with its own reservation, settles its one `request_id`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE credit_ledger ADD COLUMN requests integer CHECK (requests > 0)`
})
