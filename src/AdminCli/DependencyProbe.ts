import { existsSync } from "node:fs"
import * as NodePath from "node:path"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import type { AppSettings } from "../Services/Config/AppConfig.ts"
import { redisUrlForDisplay } from "../Services/Routing/RedisConnection.ts"
import { databaseUrlForDisplay } from "../Services/Storage/Database.ts"
import { embeddedSocketPath } from "../Services/Storage/EmbeddedPostgres.ts"

export interface Probe {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
}

const reason = (cause: unknown): string => {
  for (let current: unknown = cause, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current.message.trim() !== "") return current.message.split("\n")[0]!
  }
  return "no answer"
}

/** DATABASE_URL answers `SELECT 1` within 5 s; embedded storage is only described (it needs no server). */
export const probeDatabase = (app: AppSettings): Effect.Effect<Probe> => {
  if (app.databaseUrl === undefined) {
    const dir = NodePath.resolve(app.dataDir)
    const running = existsSync(embeddedSocketPath(app.dataDir))
    return Effect.succeed({
      name: "database",
      ok: true,
      detail: `embedded PGlite under ${dir}${running ? " (a gateway is using it)" : existsSync(dir) ? "" : " (created at first start)"}; one process only`
    })
  }
  const where = databaseUrlForDisplay(app.databaseUrl)
  return Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT 1`
  }).pipe(
    Effect.provide(PgClient.layer({ url: app.databaseUrl, maxConnections: 1 })),
    Effect.scoped,
    Effect.timeout("5 seconds"),
    Effect.as({ name: "database", ok: true, detail: `${where} answers` }),
    Effect.catchCause((cause) => Effect.succeed({ name: "database", ok: false, detail: `${where} is unreachable: ${reason(Cause.squash(cause))}` }))
  )
}

/** REDIS_URL answers PING within 5 s. */
export const probeRedis = (app: AppSettings): Effect.Effect<Probe> => {
  if (app.redisUrl === undefined) return Effect.succeed({ name: "redis", ok: true, detail: "not configured (circuit-breaker state per process)" })
  const url = app.redisUrl
  const where = redisUrlForDisplay(url)
  return Effect.tryPromise(async () => {
    const { createClient } = await import("redis")
    const client = createClient({ url: Redacted.value(url), socket: { connectTimeout: 5_000, reconnectStrategy: false } })
    client.on("error", () => {})
    try {
      await client.connect()
      await client.ping()
    } finally {
      if (client.isOpen) client.destroy()
    }
  }).pipe(
    Effect.timeout("6 seconds"),
    Effect.as({ name: "redis", ok: true, detail: `${where} answers` }),
    Effect.catch((error) => Effect.succeed({ name: "redis", ok: false, detail: `${where} is unreachable: ${reason(error)}` }))
  )
}
