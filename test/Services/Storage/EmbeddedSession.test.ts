import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../../src/Services/Config/AppConfig.ts"
import { DatabaseLive } from "../../../src/Services/Storage/Database.ts"
import { seedDataDir } from "../../support/PgliteTemplate.ts"

/**
 * Embedded storage serves every connection from one PGlite session. A statement sent on a
 * second connection while a transaction is open would run inside that transaction (and the
 * wire protocol of the two could interleave). The gateway's client must queue it until the
 * transaction ends: a plain read issued mid-transaction never sees rows that are rolled back.
 */
describe("embedded storage's one session", () => {
  let dataDir: string
  let runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>

  beforeAll(async () => {
    dataDir = mkdtempSync(NodePath.join(tmpdir(), "gw-session-"))
    await seedDataDir(dataDir)
    const app = AppConfig.make({
      port: 0,
      host: "127.0.0.1",
      configPath: undefined,
      databaseUrl: undefined,
      dataDir,
      adminToken: undefined,
      otlpEndpoint: undefined,
      redisUrl: undefined,
      redisPrefix: "gateway-test-session:",
      logLevel: "warn"
    })
    runtime = ManagedRuntime.make(DatabaseLive.pipe(Layer.provide(app)))
    await runtime.runPromise(Effect.void)
  }, 120_000)
  afterAll(async () => {
    await runtime?.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("a read issued during another fiber's transaction waits for it and never sees its rolled-back rows", async () => {
    const seen = await runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE IF NOT EXISTS session_probe (n int)`
        const counts: Array<number> = []
        for (let round = 0; round < 5; round++) {
          const inserted = yield* Deferred.make<void>()
          const rolledBack = sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO session_probe VALUES (1)`
              yield* Deferred.succeed(inserted, undefined)
              // Gives the concurrent read time to be sent; it must still wait for the end.
              yield* Effect.sleep("30 millis")
              return yield* Effect.fail("roll back" as const)
            })
          ).pipe(Effect.ignore, Effect.forkChild)
          const writer = yield* rolledBack
          yield* Deferred.await(inserted)
          const rows = yield* Effect.all(
            Array.from({ length: 4 }, () => sql<{ readonly c: number }>`SELECT count(*)::int AS c FROM session_probe`),
            { concurrency: "unbounded" }
          )
          yield* Fiber.join(writer)
          counts.push(...rows.map((row) => row[0]!.c))
        }
        return counts
      })
    )
    expect(seen).toHaveLength(20)
    expect(seen.every((count) => count === 0)).toBe(true)
  }, 60_000)
})
