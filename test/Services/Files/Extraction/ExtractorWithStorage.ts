import { ConfigProvider, Effect, Layer, Redacted, References, Schema } from "effect"
import { GatewayConfig } from "../../../../src/Domain/GatewayConfig.ts"
import { AppConfig, appSettingsConfig } from "../../../../src/Services/Config/AppConfig.ts"
import { DatabaseLive } from "../../../../src/Services/Storage/Database.ts"
import { Extractor } from "../../../../src/Services/Files/Extractor.ts"
import { GatewayConfigFile } from "../../../../src/Services/Config/GatewayConfigLoader.ts"
import { makeTestStorage } from "../../../support/TestDatabase.ts"

/**
 * The cached Extractor on a fresh storage for one test file: embedded PGlite, or a new
 * database on DATABASE_URL's server. The storage is removed when the layer closes. The
 * SqlClient is exposed so tests can look at the cache table.
 */
export const ExtractorWithStorage = (extraction: Record<string, number> = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const storage = yield* Effect.acquireRelease(
        Effect.promise(() => makeTestStorage()),
        (s) => Effect.promise(() => s.cleanup())
      )
      const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { extraction } })
      // Read like the real environment, so settings added later get their defaults.
      const env = {
        DATA_DIR: storage.dataDir,
        ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) })
      }
      const settings = yield* Effect.gen(function* () {
        return yield* appSettingsConfig
      }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))), Effect.orDie)
      return Extractor.layer.pipe(
        Layer.provideMerge(DatabaseLive),
        Layer.provide(GatewayConfigFile.fromConfig(config)),
        Layer.provide(AppConfig.make(settings)),
        Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn"))
      )
    })
  )
