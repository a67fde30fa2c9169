import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, ManagedRuntime, Schema, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import type { Principal } from "../../../src/Domain/ApiKey.ts"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { Accounts } from "../../../src/Services/Accounts/Accounts.ts"
import { AppConfig } from "../../../src/Services/Config/AppConfig.ts"
import { DatabaseLive } from "../../../src/Services/Storage/Database.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { Files } from "../../../src/Services/Files/Files.ts"
import { FileStore } from "../../../src/Services/Files/FileStore.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { makeTestStorage, type TestStorage } from "../../support/TestDatabase.ts"

// The sweeper's first run is at 7200 s of gateway time, after the file expires at 3600 s. With a
// shorter interval its runs chain on real database round trips while TestClock advances, so one
// could land right at the expiry and take the bytes before the test looks for them.
const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { sweep_interval_seconds: 7200 } })

describe("file expiry", () => {
  let storage: TestStorage
  let runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | Accounts, unknown>
  let database: Context.Context<SqlClient.SqlClient>
  let principal: Principal

  beforeAll(async () => {
    storage = await makeTestStorage()
    const settings = {
      port: 0, host: "127.0.0.1", configPath: undefined, databaseUrl: storage.databaseUrl, dataDir: storage.dataDir,
      adminToken: undefined, otlpEndpoint: undefined, redisUrl: undefined, redisPrefix: "t:", logLevel: "warn"
    }
    runtime = ManagedRuntime.make(
      Accounts.layer.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(GatewayConfigFile.fromConfig(config)), Layer.provide(AppConfig.make(settings)))
    )
    database = await runtime.runPromise(Effect.context<SqlClient.SqlClient>())
    const project = await runtime.runPromise(Effect.flatMap(Accounts, (a) => a.createProject("expiry")))
    principal = { keyId: "key_x", keySeq: 1, projectId: project.id, projectSeq: 1, userId: "user_x", scopes: new Set(["files"]), expiresAt: null }
  })
  afterAll(async () => {
    await runtime?.dispose()
    await storage?.cleanup()
  })

  const filesLayer = () =>
    Files.layer.pipe(
      Layer.provideMerge(FileStore.layerMemory),
      Layer.provide(Extractor.layerWithoutCache),
      Layer.provide(Layer.succeedContext(database)),
      Layer.provide(GatewayConfigFile.fromConfig(config))
    )

  it.effect("an expired file disappears at expires_at, and the sweeper deletes its bytes", () =>
    Effect.gen(function* () {
      const files = yield* Files
      const store = yield* FileStore
      const staged = yield* files.stage(principal, { filename: "notes.txt", contentType: "text/plain" }, Stream.make(new TextEncoder().encode("hello")))
      const created = yield* files.commit(principal, staged, { purpose: "user_data", expiresAfterSeconds: 3600 })
      expect(created.expires_at).toBe(created.created_at + 3600)
      expect((yield* files.get(principal, created.id)).id).toBe(created.id)

      yield* TestClock.adjust("3599 seconds")
      expect((yield* files.get(principal, created.id)).id).toBe(created.id)
      expect((yield* files.list(principal, { limit: 10, order: "desc", after: undefined, purpose: undefined })).data).toHaveLength(1)

      yield* TestClock.adjust("1 second")
      const gone = yield* Effect.exit(files.get(principal, created.id))
      expect(Exit.isFailure(gone)).toBe(true)
      expect((yield* files.list(principal, { limit: 10, order: "desc", after: undefined, purpose: undefined })).data).toHaveLength(0)

      // No sweep has run yet; the first (at 7200 s) removes the row and the bytes.
      expect(yield* store.exists(staged.key)).toBe(true)
      yield* TestClock.adjust("3600 seconds")
      // The sweep talks to a real database: give it (real) time to finish.
      for (let i = 0; i < 250 && (yield* store.exists(staged.key)); i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      }
      expect(yield* store.exists(staged.key)).toBe(false)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT id FROM files WHERE id = ${created.id}`
      expect(rows).toHaveLength(0)
    }).pipe(Effect.provide(Layer.merge(filesLayer(), Layer.succeedContext(database))))
  )

  it.effect("a file without expiry stays", () =>
    Effect.gen(function* () {
      const files = yield* Files
      const staged = yield* files.stage(principal, { filename: "keep.txt", contentType: "text/plain" }, Stream.make(new TextEncoder().encode("keep")))
      const created = yield* files.commit(principal, staged, { purpose: "user_data", expiresAfterSeconds: undefined })
      yield* TestClock.adjust("3650 days")
      expect((yield* files.get(principal, created.id)).id).toBe(created.id)
    }).pipe(Effect.provide(filesLayer()))
  )
})
