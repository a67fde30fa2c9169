import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import { AppConfig } from "../Config/AppConfig.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { type FailureReport, postgresHealthStore, redisHealthStore, type SharedHealthStore } from "./DeploymentHealthStores.ts"
import { LocalHealth } from "./LocalHealth.ts"
import { connectRedis } from "./RedisConnection.ts"

type Pending = { readonly _tag: "Failure"; readonly key: string; readonly report: FailureReport } | { readonly _tag: "Success"; readonly key: string }

/** How often the shared store is written and read; a circuit opened elsewhere is seen within this. */
const syncIntervalMs = 1_000
/** Reports kept while the shared store is away, oldest dropped first. */
const maxPending = 10_000

const notOpen = Effect.succeed(false)

/** The breaker with the shared store the environment names (see `DeploymentHealth.layer`). */
export const makeShared = Effect.gen(function* () {
  const app = yield* AppConfig
  const { config } = yield* GatewayConfigFile
  const local = new LocalHealth(config.routing)
  if (app.redisUrl !== undefined) {
    const client = yield* connectRedis(app.redisUrl, config.resilience)
    return yield* DeploymentHealth.make(local, redisHealthStore(client, config.routing, app.redisPrefix))
  }
  if (app.databaseUrl !== undefined) {
    return yield* DeploymentHealth.make(local, postgresHealthStore(yield* SqlClient.SqlClient, config.routing))
  }
  return yield* DeploymentHealth.make(local, undefined)
})

/** The breaker on this process's state alone. */
export const makeInMemory = Effect.flatMap(GatewayConfigFile, ({ config }) => DeploymentHealth.make(new LocalHealth(config.routing), undefined))

/**
 * The circuit breaker of every deployment (provider + upstream model): after
 * `routing.failure_threshold` consecutive retryable failures, or an upstream `retry-after`,
 * the deployment is skipped until its cool-down ends; the first call after that is a trial
 * whose failure re-opens it at once.
 *
 * Requests only touch process-local state. With a shared store (Redis, else Postgres), a
 * background fiber sends this instance's reports there and reads every instance's state back
 * each second; while the store is unreachable the breaker keeps working on local state, the
 * reports wait (bounded) and the outage is logged once.
 */
export class DeploymentHealth extends Context.Service<
  DeploymentHealth,
  {
    readonly isOpen: (key: string) => Effect.Effect<boolean>
    readonly recordSuccess: (key: string) => Effect.Effect<void>
    readonly recordFailure: (key: string, report: FailureReport) => Effect.Effect<void>
    /** One exchange with the shared store now (a no-op without one); never fails. */
    readonly sync: Effect.Effect<void>
  }
>()("gateway/DeploymentHealth") {
  static readonly make = (local: LocalHealth, store: SharedHealthStore | undefined) =>
    Effect.gen(function* () {
      const pending: Array<Pending> = []
      const enqueue = (report: Pending) => {
        if (pending.push(report) > maxPending) pending.shift()
      }
      let down = false
      const exchange = Effect.gen(function* () {
        if (store === undefined) return
        // A report leaves the queue only once the store took it.
        while (pending.length > 0) {
          const next = pending[0]!
          yield* next._tag === "Failure" ? store.recordFailure(next.key, next.report) : store.recordSuccess(next.key)
          pending.shift()
        }
        local.adopt(yield* store.snapshot)
      })
      const sync = exchange.pipe(
        Effect.timeout(syncIntervalMs * 5),
        Effect.matchCauseEffect({
          onSuccess: () => {
            if (!down) return Effect.void
            down = false
            return Effect.logInfo(`${store?.name} answers again; circuit-breaker state is shared again`)
          },
          onFailure: (cause) => {
            if (down) return Effect.void
            down = true
            return Effect.logWarning(`${store?.name} is unreachable; circuit-breaker state stays in this process meanwhile`, cause)
          }
        })
      )
      if (store !== undefined) {
        yield* Effect.forkScoped(Effect.repeat(sync, Schedule.spaced(syncIntervalMs)))
        // The last reports of this instance, when the store answers in time.
        yield* Effect.addFinalizer(() => Effect.timeout(sync, "2 seconds").pipe(Effect.ignore))
      }
      return DeploymentHealth.of({
        isOpen: (key) => {
          const until = local.openUntil(key)
          return until === 0 ? notOpen : Effect.map(Clock.currentTimeMillis, (now) => until > now)
        },
        // Healthy traffic reports nothing: a success only matters where failures were counted.
        recordSuccess: (key) =>
          local.isFailing(key)
            ? Effect.sync(() => {
              local.success(key)
              if (store !== undefined) enqueue({ _tag: "Success", key })
            })
            : Effect.void,
        recordFailure: (key, report) =>
          Effect.sync(() => {
            local.failure(key, report)
            if (store !== undefined) enqueue({ _tag: "Failure", key, report })
          }),
        sync
      })
    })

  /** In-process state only: correct for one instance (embedded storage serves one process anyway). */
  static readonly layerMemory = Layer.effect(DeploymentHealth, makeInMemory)

  /** Shared through Redis when REDIS_URL is set, else Postgres when DATABASE_URL is set, else in-process. */
  static readonly layer = Layer.effect(DeploymentHealth, makeShared)
}

