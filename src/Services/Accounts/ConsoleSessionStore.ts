import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"

/**
 * Which console sessions are live, in the database every instance shares: a signed cookie alone
 * cannot be taken back, so every session is also a row, and a request with the cookie is admitted
 * only while its row is neither ended nor expired. Signing out ends one row; "sign out
 * everywhere" ends them all (and so every browser and instance at once).
 */
export interface ConsoleSessionStoreShape {
  readonly open: (id: string, nowMs: number, expiresAtMs: number) => Effect.Effect<void, GatewayError>
  readonly isLive: (id: string, nowMs: number) => Effect.Effect<boolean, GatewayError>
  readonly end: (id: string, nowMs: number) => Effect.Effect<void, GatewayError>
  /** Ends every live session; how many there were. */
  readonly endAll: (nowMs: number) => Effect.Effect<number, GatewayError>
}

export class ConsoleSessionStore extends Context.Service<ConsoleSessionStore, ConsoleSessionStoreShape>()("gateway/ConsoleSessionStore") {
  static readonly layer = Layer.effect(
    ConsoleSessionStore,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const guard = storageGuard((yield* GatewayConfigFile).config.resilience)
      const dayMs = 24 * 60 * 60 * 1000
      return ConsoleSessionStore.of({
        open: (id, nowMs, expiresAtMs) =>
          Effect.asVoid(
            sql`INSERT INTO console_sessions ${sql.insert({ id, created_at_ms: nowMs, expires_at_ms: expiresAtMs })}`.pipe(
              // Sign-ins are rare: each one clears what expired over a day ago.
              Effect.andThen(sql`DELETE FROM console_sessions WHERE expires_at_ms < ${nowMs - dayMs}`),
              guard
            )
          ),
        isLive: (id, nowMs) =>
          Effect.map(
            sql<{ readonly id: string }>`SELECT id FROM console_sessions
              WHERE id = ${id} AND ended_at_ms IS NULL AND expires_at_ms > ${nowMs}`.pipe(guard),
            (rows) => rows.length > 0
          ),
        end: (id, nowMs) =>
          Effect.asVoid(sql`UPDATE console_sessions SET ended_at_ms = ${nowMs} WHERE id = ${id} AND ended_at_ms IS NULL`.pipe(guard)),
        endAll: (nowMs) =>
          Effect.map(
            sql<{ readonly id: string }>`UPDATE console_sessions SET ended_at_ms = ${nowMs}
              WHERE ended_at_ms IS NULL AND expires_at_ms > ${nowMs} RETURNING id`.pipe(guard),
            (rows) => rows.length
          )
      })
    })
  )
}
