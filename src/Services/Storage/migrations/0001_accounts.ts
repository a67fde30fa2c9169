import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE projects (
    id text PRIMARY KEY,
    seq integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE TABLE users (
    id text PRIMARY KEY,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name text NOT NULL,
    email text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX users_project_idx ON users (project_id, created_at)`
  yield* sql`CREATE TABLE api_keys (
    id text PRIMARY KEY,
    seq integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    secret_sha256 bytea NOT NULL UNIQUE,
    hint text NOT NULL,
    name text,
    project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id text REFERENCES users (id) ON DELETE CASCADE,
    scopes text[] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    revoked_at timestamptz
  )`
  yield* sql`CREATE INDEX api_keys_project_idx ON api_keys (project_id, created_at)`
})
