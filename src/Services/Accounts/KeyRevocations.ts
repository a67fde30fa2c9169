import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as SqlClient from "effect/sql/SqlClient"
import type { Principal } from "../../Domain/ApiKey.ts"
import { AppConfig } from "../Config/AppConfig.ts"
import { ApiKeys } from "./ApiKeys.ts"

/** The Postgres channel a revocation is announced on; the payload is the key id. */
export const revocationChannel = "gateway_key_revoked"

/**
 * Announces a revocation to every instance on the same database, the revoking process being
 * the admin API of any instance or the CLI. Best effort: a lost notice only means the old
 * `auth.cache_ttl_seconds` delay.
 */
export const announceRevocation = (sql: SqlClient.SqlClient, keyId: string) =>
  sql`SELECT pg_notify(${revocationChannel}, ${keyId})`.pipe(Effect.ignore)

/** Drops the cached verdicts of `keyId` (every verdict when undefined). */
export const forget = (
  cache: Map<string, { readonly verdict: { readonly _tag: string; readonly principal?: Principal } }>,
  keyId: string | undefined
): void => {
  if (keyId === undefined) return cache.clear()
  for (const [secret, entry] of cache) {
    // A revoked or unknown verdict carries no id; only a valid one can be the key being revoked.
    if (entry.verdict.principal?.keyId === keyId) cache.delete(secret)
  }
}

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
