import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type { RoutingSettings } from "../../Domain/GatewayConfig.ts"
import { type RedisClient, redisScript } from "./RedisConnection.ts"

/** The circuit-breaker state of every instance, as one shared store reports it. */
export interface HealthSnapshot {
  /** Unix ms until which each deployment cools down (past values may be included). */
  readonly openUntil: ReadonlyMap<string, number>
  /** Deployments with consecutive failures counted. */
  readonly failing: ReadonlySet<string>
}

export interface FailureReport {
  readonly now: number
  readonly retryAfterMs?: number | undefined
}

/**
 * Where instances share their circuit breakers: Postgres or Redis. Only the background sync of
 * `DeploymentHealth` calls it, never a request, so its failures are retried and logged there.
 */
export interface SharedHealthStore {
  readonly name: string
  readonly snapshot: Effect.Effect<HealthSnapshot, unknown>
  /** One more consecutive failure, counted across instances; opens the circuit at the threshold. */
  readonly recordFailure: (key: string, report: FailureReport) => Effect.Effect<void, unknown>
  /** Resets the consecutive failures of a deployment. */
  readonly recordSuccess: (key: string) => Effect.Effect<void, unknown>
}

export const postgresHealthStore = (sql: SqlClient.SqlClient, settings: RoutingSettings): SharedHealthStore => ({
  name: "Postgres",
  snapshot: Effect.map(
    sql<{ key: string; failures: number; open_until: number | null }>`SELECT key, failures,
        extract(epoch from open_until)::float8 * 1000 AS open_until FROM deployment_health
        WHERE failures > 0 OR open_until > now()`,
    (rows) => ({
      openUntil: new Map(rows.map((r) => [r.key, r.open_until ?? 0])),
      failing: new Set(rows.filter((r) => r.failures > 0).map((r) => r.key))
    })
  ),
  recordSuccess: (key) => Effect.asVoid(sql`UPDATE deployment_health SET failures = 0 WHERE key = ${key}`),
  recordFailure: (key, { now, retryAfterMs }) => {
    const cooldownUntil = new Date(now + settings.cooldown_seconds * 1000)
    const retryUntil = retryAfterMs === undefined ? null : new Date(now + retryAfterMs)
    return Effect.asVoid(sql`INSERT INTO deployment_health (key, failures, open_until)
      VALUES (${key}, 1, ${retryUntil})
      ON CONFLICT (key) DO UPDATE SET
        failures = deployment_health.failures + 1,
        open_until = GREATEST(
          deployment_health.open_until,
          CASE WHEN deployment_health.failures + 1 >= ${settings.failure_threshold} THEN ${cooldownUntil}::timestamptz END,
          ${retryUntil}::timestamptz)`)
  }
})

const recordFailureScript = `
local failures = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local current = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local target = current
if failures >= tonumber(ARGV[2]) then target = math.max(target, tonumber(ARGV[3]) + tonumber(ARGV[4])) end
target = math.max(target, tonumber(ARGV[5]))
if target > current then redis.call('HSET', KEYS[2], ARGV[1], tostring(target)) end
return failures`
const recordFailure = redisScript(recordFailureScript)

/** Two hashes under `prefix`: consecutive failures and open-until (unix ms) per deployment. */
export const redisHealthStore = (client: RedisClient, settings: RoutingSettings, prefix: string): SharedHealthStore => {
  const failuresKey = `${prefix}health:failures`
  const openKey = `${prefix}health:open_until`
  const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => cause })
  return {
    name: "Redis",
    snapshot: call(() => Promise.all([client.hGetAll(openKey), client.hGetAll(failuresKey)])).pipe(
      Effect.map(([open, failures]) => ({
        openUntil: new Map(Object.entries(open).map(([k, v]) => [k, Number(v)])),
        failing: new Set(Object.entries(failures).filter(([, v]) => Number(v) > 0).map(([k]) => k))
      }))
    ),
    recordSuccess: (key) => Effect.asVoid(call(() => client.hDel(failuresKey, key))),
    recordFailure: (key, { now, retryAfterMs }) =>
      Effect.asVoid(
        call(() =>
          recordFailure(client, {
            keys: [failuresKey, openKey],
            arguments: [
              key,
              String(settings.failure_threshold),
              String(now),
              String(settings.cooldown_seconds * 1000),
              String(retryAfterMs === undefined ? 0 : now + retryAfterMs)
            ]
          })
        )
      )
  }
}
