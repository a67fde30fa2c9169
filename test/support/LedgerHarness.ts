import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted, References } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig, type AppSettings } from "../../src/Services/Config/AppConfig.ts"
import { decodeConfig, GatewayConfigFile } from "../../src/Services/Config/GatewayConfigLoader.ts"
import { DatabaseLive, embeddedSocketPath } from "../../src/Services/Storage/Database.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { CuttableProxy } from "./CuttableProxy.ts"
import { makeTestStorage, type TestStorage } from "./TestDatabase.ts"

/**
 * The usage ledger on real storage (embedded, or the Postgres of DATABASE_URL) reached through a
 * proxy the test can cut, beside a direct connection for setting up and checking rows. Several
 * ledgers can be started one after the other on the same database and spill directory, as
 * successive runs of the gateway would be.
 */
export interface LedgerHarness {
  readonly storage: TestStorage
  readonly proxy: CuttableProxy
  readonly spillDirectory: string
  /** Runs `effect` over the direct connection (migrated, never cut). */
  readonly sql: <A, E>(effect: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) => Promise<A>
  /** A ledger over the proxy; `usage` overrides gateway.yaml's `usage:` settings. */
  readonly startLedger: (usage?: Record<string, unknown>) => Promise<ManagedRuntime.ManagedRuntime<UsageLedger, unknown>>
  readonly stop: () => Promise<void>
}

const appSettings = (storage: TestStorage): AppSettings => ({
  port: 0,
  host: "127.0.0.1",
  configPath: undefined,
  databaseUrl: storage.databaseUrl,
  dataDir: storage.dataDir,
  adminToken: undefined,
  otlpEndpoint: undefined,
  redisUrl: undefined,
  redisPrefix: "ledger-test:",
  logLevel: "warn"
})

export const startLedgerHarness = async (): Promise<LedgerHarness> => {
  const storage = await makeTestStorage()
  const app = AppConfig.make(appSettings(storage))
  const direct = ManagedRuntime.make(DatabaseLive.pipe(Layer.provide(app)))
  await direct.runPromise(Effect.void)
  const url = storage.databaseUrl === undefined ? undefined : new URL(Redacted.value(storage.databaseUrl))
  const proxy = await new CuttableProxy(
    url === undefined ? { path: embeddedSocketPath(storage.dataDir) } : { host: url.hostname, port: Number(url.port || 5432) }
  ).start()
  const spillDirectory = mkdtempSync(NodePath.join(tmpdir(), "gw-spill-"))
  const ledgers: Array<ManagedRuntime.ManagedRuntime<UsageLedger, unknown>> = []

  const startLedger = async (usage: Record<string, unknown> = {}) => {
    const config = await Effect.runPromise(
      decodeConfig("ledger-test.yaml", { usage: { flush_interval_ms: 3_600_000, spill_directory: spillDirectory, ...usage } }, {})
    )
    const target = new URL(url?.toString() ?? "postgres://postgres@localhost/postgres")
    target.hostname = "127.0.0.1"
    target.port = String(proxy.port)
    const client = PgClient.layer({ url: Redacted.make(target.toString()), prepare: false, maxConnections: 2, connectTimeout: "2 seconds" })
    const runtime = ManagedRuntime.make(
      UsageLedger.layer.pipe(
        Layer.provide(client),
        Layer.provide(GatewayConfigFile.fromConfig(config)),
        Layer.provide(app),
        Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error"))
      )
    )
    await runtime.runPromise(Effect.void)
    ledgers.push(runtime)
    return runtime
  }

  return {
    storage,
    proxy,
    spillDirectory,
    sql: (effect) => direct.runPromise(Effect.gen(function* () {
      return yield* effect(yield* SqlClient.SqlClient)
    })),
    startLedger,
    stop: async () => {
      proxy.restore()
      for (const ledger of ledgers) await ledger.dispose().catch(() => undefined)
      await proxy.stop()
      await direct.dispose()
      rmSync(spillDirectory, { recursive: true, force: true })
      await storage.cleanup()
    }
  }
}
