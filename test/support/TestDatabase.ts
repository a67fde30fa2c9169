import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { seedDataDir } from "./PgliteTemplate.ts"

/**
 * Storage for one test file. With DATABASE_URL set (CI's second run) each file gets its own
 * fresh database on that server, dropped afterwards; otherwise an embedded database in a
 * temporary DATA_DIR.
 */
export interface TestStorage {
  readonly dataDir: string
  readonly databaseUrl: Redacted.Redacted<string> | undefined
  readonly mode: "postgres" | "embedded"
  readonly cleanup: () => Promise<void>
}

const adminQuery = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.scoped)
  )

export const makeTestStorage = async (): Promise<TestStorage> => {
  const dataDir = mkdtempSync(NodePath.join(tmpdir(), "gw-test-"))
  const base = process.env["DATABASE_URL"]
  if (base === undefined || base === "") {
    await seedDataDir(dataDir)
    return {
      dataDir,
      databaseUrl: undefined,
      mode: "embedded",
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const name = `gw_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await adminQuery(base, `CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    dataDir,
    databaseUrl: Redacted.make(url.toString()),
    mode: "postgres",
    cleanup: async () => {
      rmSync(dataDir, { recursive: true, force: true })
      await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  }
}
