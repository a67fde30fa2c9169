import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as SqlClient from "effect/sql/SqlClient"
import { route } from "./Route.ts"

/** Alive: the process answers. No auth, no dependencies. */
const healthz = Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }))

/** Ready: the database answers within two seconds. */
const readyz = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ok = yield* sql`SELECT 1`.pipe(
    Effect.timeout("2 seconds"),
    Effect.as(true),
    Effect.catchCause(() => Effect.succeed(false))
  )
  return ok
    ? HttpServerResponse.jsonUnsafe({ status: "ready", database: "ok" })
    : HttpServerResponse.jsonUnsafe({ status: "unavailable", database: "unreachable" }, { status: 503 })
})

export const healthRoutes = [route("GET", "/healthz", healthz), route("GET", "/readyz", readyz)]
