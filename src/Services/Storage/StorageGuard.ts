import * as Effect from "effect/Effect"
import * as SqlError from "effect/sql/SqlError"
import { GatewayError, ServiceUnavailable } from "../../Domain/GatewayError.ts"
import type { ResilienceSettings } from "../../Domain/ResilienceSettings.ts"

/**
 * Whether a database failure means the database is away (stopped, restarting, unreachable,
 * out of connections) rather than a fault of the statement. Decided by the driver's error kind
 * and the SQLSTATE class, never by message text: class 08 is a connection failure, 57P an
 * operator intervention (shutdown, restart) and 53 insufficient resources.
 */
export const isStorageOutage = (error: SqlError.SqlError): boolean => {
  const reason = error.reason
  if (reason._tag === "ConnectionError") return true
  const cause: unknown = reason.cause
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  return typeof code === "string" && (code.startsWith("57P") || code.startsWith("53") || code.startsWith("08"))
}

export const storageUnavailable = (retryAfterMs: number): GatewayError =>
  new GatewayError({
    reason: new ServiceUnavailable({
      message: "The gateway's database is unreachable at the moment; retry shortly.",
      retryAfterMs,
      code: "storage_unavailable"
    })
  })

/** Turns the storage failures of an effect into what a client may see. */
export type StorageGuard = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError.SqlError> | GatewayError, R>

/**
 * A database call on a request's path: an outage, or no answer within
 * `resilience.storage_timeout_ms`, is a 503 with `Retry-After`; any other SQL failure is a
 * defect (a 500 naming the request id), since a well-formed request cannot cause it.
 */
export const storageGuard = (settings: ResilienceSettings): StorageGuard => {
  const retryAfterMs = settings.retry_after_seconds * 1000
  const timeout = { duration: settings.storage_timeout_ms, orElse: () => Effect.fail(storageUnavailable(retryAfterMs)) }
  return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.timeoutOrElse(timeout),
      Effect.catchIf(
        (error): error is Extract<E, SqlError.SqlError> => SqlError.isSqlError(error),
        (error) => (isStorageOutage(error) ? Effect.fail(storageUnavailable(retryAfterMs)) : Effect.die(error))
      )
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | GatewayError, R>
}
