import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Credit balances, spend limits, rate limits and reservations. `credit_ledger` is append-only:
 * every change of a balance is one row, so a balance can be audited and rebuilt from it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A row means the project is billed: it has a prepaid balance (NULL: none, unlimited) or limits.
  yield* sql`CREATE TABLE billing_accounts (
    project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    balance_nano bigint,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE TABLE credit_ledger (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id text NOT NULL,
    key_id text,
    kind text NOT NULL CHECK (kind IN ('grant', 'settlement', 'refund')),
    amount_nano bigint NOT NULL,
    request_id text,
    note text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX credit_ledger_project_idx ON credit_ledger (project_id, seq)`
  // Append-only in the database itself: a row is never changed or removed, whoever connects.
  yield* sql`CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'credit_ledger is append-only'; END $$`
  yield* sql`CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE ON credit_ledger
    FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only()`
  // key_id '' is the project's own limit.
  yield* sql`CREATE TABLE spend_limits (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_id text NOT NULL DEFAULT '',
    period text NOT NULL CHECK (period IN ('day', 'month', 'total')),
    limit_nano bigint NOT NULL CHECK (limit_nano >= 0),
    PRIMARY KEY (project_id, key_id, period)
  )`
  // Settled spend per project ('' key) and key per period, kept with each settlement.
  yield* sql`CREATE TABLE spend_counters (
    project_id text NOT NULL,
    key_id text NOT NULL,
    period text NOT NULL,
    period_start timestamptz NOT NULL,
    spent_nano bigint NOT NULL,
    PRIMARY KEY (project_id, key_id, period, period_start)
  )`
  yield* sql`CREATE TABLE rate_limits (
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key_id text NOT NULL DEFAULT '',
    model text NOT NULL DEFAULT '',
    rpm integer,
    tpm integer,
    PRIMARY KEY (project_id, key_id, model)
  )`
  yield* sql`CREATE TABLE reservations (
    id text PRIMARY KEY,
    project_id text NOT NULL,
    key_id text NOT NULL,
    amount_nano bigint NOT NULL,
    expires_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX reservations_project_idx ON reservations (project_id, expires_at)`
})
