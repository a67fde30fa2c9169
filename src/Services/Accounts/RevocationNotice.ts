import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type { Principal } from "../../Domain/ApiKey.ts"

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
