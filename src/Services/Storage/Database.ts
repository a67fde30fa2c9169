import { type ChildProcess, fork } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { AppConfig } from "../Config/AppConfig.ts"
import { canConnect, embeddedSocketPath, lockHolder } from "./EmbeddedPostgres.ts"
import { runMigrations } from "./Migrations.ts"

export { embeddedSocketPath } from "./EmbeddedPostgres.ts"

export class DatabaseStartError extends Data.TaggedError("DatabaseStartError")<{ readonly message: string }> {}

const pgOverSocket = (path: string) =>
  PgClient.layer({
    path,
    username: "postgres",
    database: "postgres",
    // One PGlite session serves every socket connection: named prepared statements from two
    // connections would collide, and statements of two connections interleave on the one
    // session (one connection's query lands inside another's transaction, or the wire protocol
    // breaks mid-bind: "Unexpected ReadyForQuery"). One connection makes the pool queue them:
    // a transaction holds it, every other statement waits its turn, as PGlite runs them anyway.
    prepare: false,
    maxConnections: 1
  })

const storageProcessEntry = fileURLToPath(new URL("./EmbeddedPostgresProcess.ts", import.meta.url))

type StorageMessage = { readonly ready: true } | { readonly error: string }

/**
 * Starts the embedded storage process on DATA_DIR and keeps it for as long as the layer lives.
 * Release asks it to stop and waits, so the last writes are on disk before the gateway exits.
 */
const startEmbedded = (dataDir: string, socketPath: string) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess, DatabaseStartError>((resume) => {
      const child = fork(storageProcessEntry, [dataDir, socketPath], {
        execArgv: [],
        stdio: ["ignore", "inherit", "inherit", "ipc"]
      })
      const fail = (message: string) => resume(Effect.fail(new DatabaseStartError({ message })))
      const onExit = (code: number | null) => fail(`embedded storage process exited during start-up (code ${code})`)
      child.once("error", (cause) => fail(`cannot start the embedded storage process: ${cause.message}`))
      child.once("exit", onExit)
      child.once("message", (message: StorageMessage) => {
        child.off("exit", onExit)
        if ("ready" in message) resume(Effect.succeed(child))
        else fail(message.error)
      })
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
        child.once("exit", () => {
          clearTimeout(timer)
          resume(Effect.void)
        })
        if (child.connected) child.send({ stop: true })
        else child.kill("SIGKILL")
      })
  )

/**
 * `?prepare=false` in DATABASE_URL turns named prepared statements off, for servers that cannot
 * keep them per connection: a pooler in transaction mode, or the embedded storage's socket (one
 * session behind every connection). Other parameters are the driver's.
 */
const urlOptions = (url: Redacted.Redacted<string>): { readonly prepare?: boolean } => {
  try {
    return new URL(Redacted.value(url)).searchParams.get("prepare") === "false" ? { prepare: false } : {}
  } catch {
    return {}
  }
}

const migrated = <E, R>(client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E, R>) =>
  Layer.effectDiscard(
    runMigrations.pipe(Effect.mapError((cause) => new DatabaseStartError({ message: `migration failed: ${String(cause)}` })))
  ).pipe(Layer.provideMerge(client))

/**
 * SqlClient for the whole gateway: Postgres at DATABASE_URL, or embedded PGlite under
 * DATA_DIR reached through the same driver. Migrations run before the layer is ready.
 */
export const DatabaseLive: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown, AppConfig> = Layer.unwrap(
  Effect.gen(function* () {
    const app = yield* AppConfig
    if (app.databaseUrl !== undefined) {
      return migrated(PgClient.layer({ url: app.databaseUrl, maxConnections: 10, ...urlOptions(app.databaseUrl) }))
    }
    const socketPath = embeddedSocketPath(app.dataDir)
    return migrated(Layer.unwrap(Effect.as(startEmbedded(app.dataDir, socketPath), pgOverSocket(socketPath))))
  })
)

/**
 * For the admin CLI: reuse a running gateway's embedded database through its socket, or open
 * the data directory itself when no gateway is running.
 */
export const DatabaseForCli: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, unknown, AppConfig> = Layer.unwrap(
  Effect.gen(function* () {
    const app = yield* AppConfig
    if (app.databaseUrl !== undefined) {
      return migrated(PgClient.layer({ url: app.databaseUrl, maxConnections: 2, ...urlOptions(app.databaseUrl) }))
    }
    const socketPath = embeddedSocketPath(app.dataDir)
    // A gateway that is still starting holds the lock before its socket exists: wait for the socket.
    for (let waited = 0; lockHolder(app.dataDir) !== undefined && waited < 60_000; waited += 200) {
      if (existsSync(socketPath) && (yield* Effect.promise(() => canConnect(socketPath)))) break
      yield* Effect.sleep(200)
    }
    if (existsSync(socketPath) && (yield* Effect.promise(() => canConnect(socketPath)))) return migrated(pgOverSocket(socketPath))
    return migrated(Layer.unwrap(Effect.as(startEmbedded(app.dataDir, socketPath), pgOverSocket(socketPath))))
  })
)

export const databaseUrlForDisplay = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return "<unparsable DATABASE_URL>"
  }
}
