import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { RoutingSettings } from "../../Domain/GatewayConfig.ts"
import { AppConfig } from "../Config/AppConfig.ts"
import { type HealthStore, memoryHealthStore, postgresHealthStore, redisHealthStore } from "./DeploymentHealthStores.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

/**
 * The circuit breaker of every deployment (provider + upstream model): after
 * `routing.failure_threshold` consecutive retryable failures, or an upstream `retry-after`,
 * the deployment is skipped until its cool-down ends; the first call after that is a trial
 * whose failure re-opens it at once.
 */
export class DeploymentHealth extends Context.Service<
  DeploymentHealth,
  HealthStore & {
    readonly isOpen: (key: string) => Effect.Effect<boolean>
  }
>()("gateway/DeploymentHealth") {
  static readonly fromStore = (store: HealthStore) =>
    DeploymentHealth.of({
      ...store,
      isOpen: (key) => Effect.zipWith(store.openUntil(key), Clock.currentTimeMillis, (until, now) => until > now)
    })

  /** In-process state: correct for one instance (embedded storage serves one process anyway). */
  static readonly layerMemory = Layer.effect(
    DeploymentHealth,
    Effect.map(GatewayConfigFile, ({ config }) => DeploymentHealth.fromStore(memoryHealthStore(config.routing)))
  )

  /** Redis when REDIS_URL is set, else Postgres when DATABASE_URL is set, else in-process. */
  static readonly layer = Layer.effect(
    DeploymentHealth,
    Effect.gen(function* () {
      const app = yield* AppConfig
      const { routing } = (yield* GatewayConfigFile).config
      if (app.redisUrl !== undefined) {
        return DeploymentHealth.fromStore(yield* redisHealthStore(app.redisUrl, routing, app.redisPrefix))
      }
      if (app.databaseUrl !== undefined) {
        return DeploymentHealth.fromStore(postgresHealthStore(yield* SqlClient.SqlClient, routing))
      }
      return DeploymentHealth.fromStore(memoryHealthStore(routing))
    })
  )
}
