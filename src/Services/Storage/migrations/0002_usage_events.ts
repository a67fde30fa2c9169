import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Usage is an append-only, time-ordered log partitioned by month, so retention is a
 * `DROP TABLE` of a whole partition instead of a long DELETE. Rows hold small integer
 * references (project, key, model, provider, endpoint), never repeated names or prices.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE usage_labels (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text NOT NULL,
    name text NOT NULL,
    UNIQUE (kind, name)
  )`
  yield* sql`CREATE TABLE usage_endpoints (
    id smallint PRIMARY KEY,
    name text NOT NULL UNIQUE
  )`
  yield* sql`INSERT INTO usage_endpoints (id, name) VALUES
    (1, 'chat'), (2, 'embeddings'), (3, 'audio'), (4, 'images'), (5, 'files'), (6, 'tools'), (7, 'decisions')`
  yield* sql`CREATE SEQUENCE usage_events_id_seq AS bigint`
  yield* sql`CREATE TABLE usage_events (
    occurred_at timestamptz NOT NULL,
    id bigint NOT NULL DEFAULT nextval('usage_events_id_seq'),
    project_seq integer NOT NULL,
    key_seq integer NOT NULL,
    endpoint smallint NOT NULL,
    requested_model integer,
    used_model integer,
    provider integer,
    status smallint NOT NULL,
    cancelled boolean NOT NULL DEFAULT false,
    streamed boolean NOT NULL DEFAULT false,
    prompt_tokens integer NOT NULL DEFAULT 0,
    completion_tokens integer NOT NULL DEFAULT 0,
    cached_tokens integer NOT NULL DEFAULT 0,
    cache_write_tokens integer NOT NULL DEFAULT 0,
    units real NOT NULL DEFAULT 0,
    latency_ms integer NOT NULL,
    ttft_ms integer,
    attempts smallint NOT NULL DEFAULT 1,
    cost_nano_usd bigint NOT NULL DEFAULT 0,
    request_id text NOT NULL,
    detail jsonb,
    PRIMARY KEY (occurred_at, id)
  ) PARTITION BY RANGE (occurred_at)`
  yield* sql`CREATE INDEX usage_events_project_time_idx ON usage_events (project_seq, occurred_at)`
  // Catches rows outside every monthly partition (clock skew) so nothing is ever lost.
  yield* sql`CREATE TABLE usage_events_default PARTITION OF usage_events DEFAULT`
})
