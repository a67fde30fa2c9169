import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as SqlClient from "effect/sql/SqlClient"
import { AppConfig } from "../Config/AppConfig.ts"
import { ApiKeys } from "./ApiKeys.ts"
import { revocationChannel } from "./RevocationNotice.ts"

/**
 * Postgres: listens for revocations (LISTEN) and drops the revoked key from this instance's key
 * cache at once. The listener holds one connection; when it is lost (the database restarted),
 * it listens again after a second and forgets every cached verdict, since notices sent in
 * between were missed. Until then the cache's TTL is the bound, as before.
 */
const listenForRevocations = (pg: PgClient.PgClient, keys: ApiKeys["Service"]) => {
  let listenedBefore = false
  return Effect.scoped(
    Effect.gen(function* () {
      const notices = yield* pg.listen(revocationChannel)
      if (listenedBefore) keys.invalidate(undefined)
      listenedBefore = true
      while (true) {
        const notice = yield* Queue.take(notices)
        keys.invalidate(notice.payload === "" ? undefined : notice.payload)
      }
    })
  ).pipe(Effect.retry(Schedule.spaced("1 second")))
}

/**
 * Embedded storage: every connection, the CLI's included, is served by one PGlite through its
 * socket, and PGlite hands a notice only to the connection that raised it, never to another
 * one. So the one gateway on embedded storage asks twice a second for keys revoked in the last
 * few seconds (a tiny table; overlapping windows, so a slow revocation's commit is not missed).
 */
const pollRevocations = (sql: SqlClient.SqlClient, keys: ApiKeys["Service"]) =>
  sql<{ readonly id: string }>`SELECT id FROM api_keys WHERE revoked_at > now() - interval '5 seconds'`.pipe(
    Effect.tap((rows) => Effect.sync(() => rows.forEach((row) => keys.invalidate(row.id)))),
    Effect.ignore,
    Effect.repeat(Schedule.spaced("500 millis"))
  )

/** Revocations made anywhere (another instance's admin API, the CLI) reach this instance's key cache within a second. */
export const KeyRevocationsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const keys = yield* ApiKeys
    const embedded = (yield* AppConfig).databaseUrl === undefined
    const watch: Effect.Effect<unknown, unknown> = embedded ? pollRevocations(pg, keys) : listenForRevocations(pg, keys)
    yield* Effect.forkScoped(Effect.catchCause(watch, () => Effect.void))
  })
)
