import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * A usage row is written at most once: events replayed from a spill file, or re-sent after a
 * write whose answer was lost, hit the unique request id and are skipped (the partition key has
 * to be part of a unique index on a partitioned table; an event keeps its `occurred_at`).
 * Rows the database refuses go to `usage_dead_letters` with the reason, instead of blocking the
 * ledger; `event` is the JSON text of the event as queued (text, not jsonb, so that even a value
 * jsonb refuses is kept, escaped).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Earlier versions could write a batch twice when a commit's answer was lost: keep the first.
  yield* sql`DELETE FROM usage_events a USING usage_events b
    WHERE a.request_id = b.request_id AND a.occurred_at = b.occurred_at AND a.id > b.id`
  yield* sql`CREATE UNIQUE INDEX usage_events_request_idx ON usage_events (request_id, occurred_at)`
  yield* sql`CREATE TABLE usage_dead_letters (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    request_id text NOT NULL UNIQUE,
    reason text NOT NULL,
    event text NOT NULL
  )`
})
