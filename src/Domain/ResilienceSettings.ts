import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * `resilience` in gateway.yaml: how the gateway behaves when a client, the database or Redis
 * misbehaves. Every bound here turns a fault into a prompt, typed answer (408, 503) instead of
 * a held socket or a hung request.
 */

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

export const RedisUnavailable = Schema.Literals(["local", "exit"])
export type RedisUnavailable = typeof RedisUnavailable.Type

export const ResilienceSettings = Schema.Struct({
  /** A request body that sends nothing for this long is answered 408 and its connection closed. */
  body_read_timeout_seconds: withDefault(PositiveInt, 30),
  /** Longest wait for the database on a request's path before it is answered 503. */
  storage_timeout_ms: withDefault(PositiveInt, 5_000),
  /** `Retry-After` of a 503 sent because the database is unreachable. */
  retry_after_seconds: withDefault(PositiveInt, 5),
  /** How long start-up waits for REDIS_URL to answer. */
  redis_startup_wait_seconds: withDefault(PositiveInt, 10),
  /**
   * What happens when Redis does not answer in that time: `local` starts with process-local
   * circuit-breaker state (logged) and keeps trying in the background; `exit` stops start-up
   * with a one-line message.
   */
  redis_unavailable: withDefault(RedisUnavailable, "local")
})
export type ResilienceSettings = typeof ResilienceSettings.Type
