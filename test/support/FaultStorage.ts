import { type ChildProcess, fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { PgClient } from "@effect/sql-pg"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { embeddedSocketPath } from "../../src/Services/Storage/EmbeddedPostgres.ts"
import { CuttableProxy } from "./CuttableProxy.ts"
import { seedDataDir } from "./PgliteTemplate.ts"
import type { TestStorage } from "./TestDatabase.ts"

/**
 * Storage a test can take away: the gateway reaches its database only through a `CuttableProxy`
 * (DATABASE_URL points at the proxy), while the test keeps its own direct connection to assert
 * on the rows. Covers both backends CI runs: with DATABASE_URL set, a fresh database on that
 * server; without it, the embedded PGlite storage process on its unix socket (the same process
 * the gateway starts for embedded storage), reached without named prepared statements.
 */
export interface FaultStorage extends TestStorage {
  readonly proxy: CuttableProxy
  /** Runs a query on the database directly, past the proxy. */
  readonly query: <A extends object>(statement: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<A>>
}

const storageEntry = fileURLToPath(new URL("../../src/Services/Storage/EmbeddedPostgresProcess.ts", import.meta.url))

const startEmbeddedProcess = (dataDir: string, socketPath: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = fork(storageEntry, [dataDir, socketPath], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] })
    child.once("exit", (code) => reject(new Error(`embedded storage exited during start-up (${code})`)))
    child.once("message", (message: { ready?: true; error?: string }) => {
      if (message.ready === true) resolve(child)
      else reject(new Error(message.error ?? "embedded storage failed"))
    })
  })

const stopProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.send({ stop: true })
  })

const adminQuery = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

export const makeFaultStorage = async (): Promise<FaultStorage> => {
  const dataDir = mkdtempSync(NodePath.join(tmpdir(), "gw-fault-"))
  const base = process.env["DATABASE_URL"]
  if (base === undefined || base === "") {
    await seedDataDir(dataDir)
    const socketPath = embeddedSocketPath(dataDir)
    const child = await startEmbeddedProcess(dataDir, socketPath)
    const proxy = await new CuttableProxy({ path: socketPath }).start()
    const direct = ManagedRuntime.make(PgClient.layer({ path: socketPath, username: "postgres", database: "postgres", prepare: false, maxConnections: 1 }))
    return {
      dataDir,
      databaseUrl: Redacted.make(`postgres://postgres@127.0.0.1:${proxy.port}/postgres?prepare=false`),
      mode: "embedded",
      proxy,
      query: (statement, params = []) => direct.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement, params))) as never,
      cleanup: async () => {
        await direct.dispose()
        await proxy.stop()
        await stopProcess(child)
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
  }
  const name = `gw_fault_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await adminQuery(base, `CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  const proxy = await new CuttableProxy({ host: url.hostname, port: Number(url.port || 5432) }).start()
  const viaProxy = new URL(url)
  viaProxy.hostname = "127.0.0.1"
  viaProxy.port = String(proxy.port)
  const direct = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 }))
  return {
    dataDir,
    databaseUrl: Redacted.make(viaProxy.toString()),
    mode: "postgres",
    proxy,
    query: (statement, params = []) => direct.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement, params))) as never,
    cleanup: async () => {
      await direct.dispose()
      await proxy.stop()
      rmSync(dataDir, { recursive: true, force: true })
      await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  }
}

/** The usage rows of the given request ids, oldest first. */
export const usageRowsOf = (storage: FaultStorage, requestIds: ReadonlyArray<string>) =>
  storage.query<{ request_id: string; status: number; streamed: boolean; cancelled: boolean; completion_tokens: number }>(
    `SELECT request_id, status, streamed, cancelled, completion_tokens FROM usage_events WHERE request_id = ANY($1::text[]) ORDER BY id`,
    [requestIds]
  )
