import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * What the console's operations need. Users and projects are deleted softly (`deleted_at`): their
 * keys are revoked and they leave every listing, while their usage, credit ledger and key records
 * stay for audit. A credit grant records who granted it (`granted_by`, free text). A billing
 * account records when it started counting spend (`created_at`; NULL for accounts older than this
 * column, which the console says). A usage row keeps the trace id of its request when traces are
 * exported, so the request log links a row to its trace.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE projects ADD COLUMN deleted_at timestamptz`
  yield* sql`ALTER TABLE users ADD COLUMN deleted_at timestamptz`
  yield* sql`ALTER TABLE credit_ledger ADD COLUMN granted_by text`
  yield* sql`ALTER TABLE billing_accounts ADD COLUMN created_at timestamptz`
  yield* sql`ALTER TABLE billing_accounts ALTER COLUMN created_at SET DEFAULT now()`
  yield* sql`ALTER TABLE usage_events ADD COLUMN trace_id text`
  // The request log pages a project's rows newest first, optionally for one key.
  yield* sql`CREATE INDEX usage_events_project_key_time_idx ON usage_events (project_seq, key_seq, occurred_at)`
})
