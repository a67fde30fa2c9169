import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { PgClient } from "@effect/sql-pg"
import { Data, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "./AppConfig.ts"
import { runMigrations } from "./Migrations.ts"

export class DatabaseStartError extends Data.TaggedError("DatabaseStartError")<{ readonly message: string }> {}

/**
 * The embedded database listens on a unix socket inside DATA_DIR (mode 0600), so only this
 * user can reach it and the admin CLI can find a running gateway's database by path alone.
 * Unix socket paths are limited to ~107 bytes; a deep DATA_DIR gets a socket in the temp
 * directory, named after the data directory so both processes derive the same path.
 */
export const embeddedSocketPath = (dataDir: string): string => {
  const inside = NodePath.join(NodePath.resolve(dataDir), "pg.sock")
  if (Buffer.byteLength(inside) <= 100) return inside
  const digest = createHash("sha256").update(NodePath.resolve(dataDir)).digest("hex").slice(0, 16)
  return NodePath.join(tmpdir(), `gateway-${digest}.sock`)
}

const canConnect = (path: string) =>
  Effect.callback<boolean>((resume) => {
    const socket = Net.connect({ path })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

const pgOverSocket = (path: string) =>
  PgClient.layer({
    path,
    username: "postgres",
    database: "postgres",
    // One PGlite session serves every socket connection, so named prepared statements from
    // two connections would collide.
    prepare: false,
    maxConnections: 4
  })

const lockPath = (dataDir: string) => NodePath.join(NodePath.resolve(dataDir), "pg.lock")

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The process holding the data directory, if one is alive (a stale lock is removed). */
const lockHolder = (dataDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), "utf8"))
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) return pid
    unlinkSync(lockPath(dataDir))
  } catch {
    // no lock file
  }
  return undefined
}

/**
 * Only one process may open an on-disk PGlite: the data directory is locked by pid from before
 * PGlite opens until after it closed, so a CLI started while the gateway boots waits for the
 * gateway's socket instead of opening the same files.
 */
const acquireDataDirLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const holder = lockHolder(dataDir)
      if (holder !== undefined) {
        return yield* new DatabaseStartError({
          message: `another process (pid ${holder}) is using ${NodePath.resolve(dataDir)}; embedded storage serves one process, set DATABASE_URL to run several`
        })
      }
      yield* Effect.try({
        try: () => writeFileSync(lockPath(dataDir), String(process.pid), { flag: "wx", mode: 0o600 }),
        catch: () => new DatabaseStartError({ message: `${NodePath.resolve(dataDir)} is being opened by another process` })
      })
    }),
    () => Effect.sync(() => rmSync(lockPath(dataDir), { force: true }))
  )

/**
 * Postgres in WebAssembly keeps its buffer pool inside the gateway's own memory, where the
 * default 128 MB is most of the process. The embedded store is small (keys, accounts, the
 * usage log, which is only appended to), so a 16 MB pool serves it.
 */
const embeddedStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/** Starts PGlite on DATA_DIR and serves it on the socket for as long as the layer lives. */
const startEmbedded = (dataDir: string, socketPath: string) =>
  Effect.gen(function* () {
    const pgDir = NodePath.join(NodePath.resolve(dataDir), "pg")
    yield* Effect.try({
      try: () => mkdirSync(pgDir, { recursive: true, mode: 0o700 }),
      catch: (cause) => new DatabaseStartError({ message: `cannot create ${pgDir}: ${String(cause)}` })
    })
    yield* acquireDataDirLock(dataDir)
    if (existsSync(socketPath)) {
      if (yield* canConnect(socketPath)) {
        return yield* new DatabaseStartError({
          message: `another gateway is already using ${NodePath.resolve(dataDir)} (socket ${socketPath}); embedded storage serves one process, set DATABASE_URL to run several`
        })
      }
      unlinkSync(socketPath)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create({ dataDir: pgDir, startParams: embeddedStartParams }),
        catch: (cause) => new DatabaseStartError({ message: `cannot open embedded database in ${pgDir}: ${String(cause)}` })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 16 })
          await server.start()
          chmodSync(socketPath, 0o600)
          return server
        },
        catch: (cause) => new DatabaseStartError({ message: `cannot listen on ${socketPath}: ${String(cause)}` })
      }),
      (server) => Effect.promise(() => server.stop()).pipe(Effect.ignore)
    )
  })

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
      return migrated(PgClient.layer({ url: app.databaseUrl, maxConnections: 10 }))
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
      return migrated(PgClient.layer({ url: app.databaseUrl, maxConnections: 2 }))
    }
    const socketPath = embeddedSocketPath(app.dataDir)
    // A gateway that is still starting holds the lock before its socket exists: wait for the socket.
    for (let waited = 0; lockHolder(app.dataDir) !== undefined && waited < 60_000; waited += 200) {
      if (existsSync(socketPath) && (yield* canConnect(socketPath))) break
      yield* Effect.sleep(200)
    }
    if (existsSync(socketPath) && (yield* canConnect(socketPath))) return migrated(pgOverSocket(socketPath))
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
