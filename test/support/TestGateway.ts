import { Effect, Layer, ManagedRuntime, Redacted, References } from "effect"
import { HttpServer } from "effect/http"
import { GatewayLive } from "../../src/AppLayer.ts"
import type { ApiScope } from "../../src/Domain/ApiKey.ts"
import { Accounts } from "../../src/Services/Accounts/Accounts.ts"
import { ApiKeys } from "../../src/Services/Accounts/ApiKeys.ts"
import { AppConfig, type AppSettings } from "../../src/Services/Config/AppConfig.ts"
import { decodeConfig, GatewayConfigFile } from "../../src/Services/Config/GatewayConfigLoader.ts"
import type { TestStorage } from "./TestDatabase.ts"

export interface StartOptions {
  readonly storage: TestStorage
  /** gateway.yaml contents as an object; decoded exactly like the real file. */
  readonly config?: unknown
  readonly settings?: Partial<AppSettings>
  /** GATEWAY_ADMIN_TOKEN; the admin API is registered only when set. */
  readonly adminToken?: string
  /** Extra layers below the gateway, e.g. a tracer that records spans in memory. */
  readonly observability?: Layer.Layer<never>
}

export interface KeyOptions {
  readonly scopes?: ReadonlyArray<ApiScope>
  readonly withUser?: boolean
  readonly projectId?: string
  readonly expiresAt?: number
  /** Strict translation on the key itself, or on the new project made for it. */
  readonly strictKey?: boolean
  readonly strictProject?: boolean
}

export interface CreatedKey {
  readonly secret: string
  readonly keyId: string
  readonly projectId: string
  readonly userId: string | undefined
}

const buildLayer = (options: StartOptions) =>
  Effect.gen(function* () {
    // No access log unless a test asks for one: its lines would only be noise in the test output.
    const raw = options.config ?? {}
    const withAccessLog = typeof raw === "object" && raw !== null && !("access_log" in raw) ? { ...raw, access_log: { enabled: false } } : raw
    const config = yield* decodeConfig("test-config.yaml", withAccessLog, process.env)
    const settings: AppSettings = {
      port: 0,
      host: "127.0.0.1",
      configPath: undefined,
      databaseUrl: options.storage.databaseUrl,
      dataDir: options.storage.dataDir,
      adminToken: undefined,
      otlpEndpoint: undefined,
      redisUrl: undefined,
      redisPrefix: `gateway-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`,
      logLevel: "warn",
      ...(options.adminToken === undefined ? {} : { adminToken: Redacted.make(options.adminToken) }),
      ...options.settings
    }
    return GatewayLive.pipe(
      Layer.provide(options.observability ?? Layer.empty),
      Layer.provideMerge(GatewayConfigFile.fromConfig(config, "test-config.yaml", options.config)),
      Layer.provideMerge(AppConfig.make(settings)),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Warn"))
    )
  })

/**
 * The whole gateway on an ephemeral loopback port, as `npm start` builds it. Most HTTP test files
 * use it through `useGateway` (UseGateway.ts), which also makes the storage, upstreams and a key.
 */
export const startGateway = async (options: StartOptions) => {
  const layer = await Effect.runPromise(buildLayer(options))
  const runtime = ManagedRuntime.make(layer)
  const server = await runtime.runPromise(HttpServer.HttpServer)
  const address = server.address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  const url = `http://127.0.0.1:${address.port}`

  const createKey = (opts: KeyOptions = {}): Promise<CreatedKey> =>
    runtime.runPromise(
      Effect.gen(function* () {
        const accounts = yield* Accounts
        const keys = yield* ApiKeys
        const projectId = opts.projectId ?? (yield* accounts.createProject("test project", opts.strictProject)).id
        const userId = opts.withUser === true ? (yield* accounts.createUser({ projectId, name: "tester" })).id : undefined
        const { key, secret } = yield* keys.create({
          projectId,
          userId,
          scopes: opts.scopes,
          expiresAt: opts.expiresAt,
          strictTranslation: opts.strictKey
        })
        return { secret, keyId: key.id, projectId, userId }
      })
    )

  return {
    url,
    runtime,
    createKey,
    stop: () => runtime.dispose()
  }
}
export type TestGateway = Awaited<ReturnType<typeof startGateway>>
