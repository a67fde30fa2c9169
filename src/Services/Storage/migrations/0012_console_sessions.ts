import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Console sign-in sessions on the server side, so that signing out ends a session on every
 * instance, and "sign out everywhere" ends them all. Rows outlive their expiry by a day at most.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE console_sessions (
    id text PRIMARY KEY,
    created_at_ms bigint NOT NULL,
    expires_at_ms bigint NOT NULL,
    ended_at_ms bigint
  )`
  yield* sql`CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at_ms)`
})
