import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, ManagedRuntime, Redacted, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { createClient } from "redis"
import { RoutingSettings } from "../../../src/Domain/GatewayConfig.ts"
import { AppConfig } from "../../../src/Services/Config/AppConfig.ts"
import { DatabaseLive } from "../../../src/Services/Storage/Database.ts"
import { postgresHealthStore, redisHealthStore, type SharedHealthStore } from "../../../src/Services/Routing/DeploymentHealthStores.ts"
import { connectRedis } from "../../../src/Services/Routing/RedisConnection.ts"
import { ResilienceSettings } from "../../../src/Domain/ResilienceSettings.ts"
import { makeTestStorage, type TestStorage } from "../../support/TestDatabase.ts"

const routing = Schema.decodeUnknownSync(RoutingSettings)({ failure_threshold: 2, cooldown_seconds: 30 })
const resilience = Schema.decodeUnknownSync(ResilienceSettings)({})
const redisUrl = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"

/** Two gateway instances share one store: what one records, the other reads. */
const sharedSuite = (name: string, makeStores: () => Promise<readonly [SharedHealthStore, SharedHealthStore]>) =>
  describe(`deployment health shared through ${name}`, () => {
    it("a circuit opened by one instance is open for the other, and a success resets the count", async () => {
      const [one, two] = await makeStores()
      const now = Date.now()
      const key = `prov/model-${Math.random().toString(36).slice(2)}`
      await Effect.runPromise(one.recordFailure(key, { now }))
      const first = await Effect.runPromise(two.snapshot)
      expect(first.failing.has(key)).toBe(true)
      expect(first.openUntil.get(key) ?? 0).toBeLessThan(now)
      await Effect.runPromise(one.recordFailure(key, { now }))
      const until = (await Effect.runPromise(two.snapshot)).openUntil.get(key) ?? 0
      expect(until).toBeGreaterThanOrEqual(now + 29_000)
      expect(until).toBeLessThanOrEqual(now + 31_000)
      await Effect.runPromise(two.recordSuccess(key))
      expect((await Effect.runPromise(one.snapshot)).failing.has(key)).toBe(false)
    })

    it("a retry-after opens the circuit for that long even below the threshold", async () => {
      const [one, two] = await makeStores()
      const now = Date.now()
      const key = `prov/ra-${Math.random().toString(36).slice(2)}`
      await Effect.runPromise(one.recordFailure(key, { now, retryAfterMs: 5000 }))
      const until = (await Effect.runPromise(two.snapshot)).openUntil.get(key) ?? 0
      expect(Math.abs(until - (now + 5000))).toBeLessThan(1000)
    })
  })

describe("deployment health stores", () => {
  let storage: TestStorage
  let runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
  const prefix = `gateway-test-health-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`
  const redisScope = Effect.runSync(Scope.make())

  beforeAll(async () => {
    storage = await makeTestStorage()
    runtime = ManagedRuntime.make(
      DatabaseLive.pipe(
        Layer.provide(
          AppConfig.make({
            port: 0,
            host: "127.0.0.1",
            configPath: undefined,
            databaseUrl: storage.databaseUrl,
            dataDir: storage.dataDir,
            adminToken: undefined,
            otlpEndpoint: undefined,
            redisUrl: undefined,
            redisPrefix: prefix,
            logLevel: "warn"
          })
        )
      )
    )
    await runtime.runPromise(Effect.void)
  })
  afterAll(async () => {
    await runtime?.dispose()
    await Effect.runPromise(Scope.close(redisScope, Exit.void))
    const client = createClient({ url: redisUrl })
    await client.connect()
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) if (keys.length > 0) await client.del(keys)
    await client.close()
    await storage?.cleanup()
  })

  sharedSuite("Postgres", async () => {
    const sql = await runtime.runPromise(SqlClient.SqlClient)
    return [postgresHealthStore(sql, routing), postgresHealthStore(sql, routing)] as const
  })

  sharedSuite("Redis", async () => {
    const make = () =>
      Effect.runPromise(
        connectRedis(Redacted.make(redisUrl), resilience).pipe(
          Effect.map((client) => redisHealthStore(client, routing, prefix)),
          Scope.provide(redisScope)
        )
      )
    return [await make(), await make()] as const
  })
})
