import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/** Circuit-breaker state shared by every gateway instance on this database. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE deployment_health (
    key text PRIMARY KEY,
    failures integer NOT NULL DEFAULT 0,
    open_until timestamptz
  )`
})
