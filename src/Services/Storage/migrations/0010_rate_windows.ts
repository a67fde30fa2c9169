import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/** Rate-limit windows shared through Postgres, for instances that share a database but no Redis. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE rate_window_entries (
    window_id text NOT NULL,
    ticket text NOT NULL,
    at_ms bigint NOT NULL,
    weight bigint NOT NULL,
    PRIMARY KEY (window_id, ticket)
  )`
  yield* sql`CREATE INDEX rate_window_entries_at_idx ON rate_window_entries (window_id, at_ms)`
})
