import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as SqlError from "effect/sql/SqlError"

/**
 * The SQL client raises some failures as defects: a transaction whose ROLLBACK (or the cleanup
 * after a failed COMMIT) fails on a dead connection dies with the driver's `SqlError`, and a
 * driver may throw on a socket closed under it. A defect passes every `retry` and `catch`, and
 * one raised in a request's finalizer is not even logged, so a write lost this way was lost
 * silently. This turns them into typed `SqlError`s: the `SqlError` a defect carries (a
 * connection error first, since that is what a retry can cure), or an `UnknownError` around
 * any other defect. An interruption stays an interruption.
 */
export const typedSqlFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.catchCause(effect, (cause): Effect.Effect<never, E | SqlError.SqlError> => {
    if (!Cause.hasDies(cause) || Cause.hasInterrupts(cause)) return Effect.failCause(cause)
    return Effect.fail(sqlErrorOf(cause))
  })

/** The `SqlError` a cause with defects stands for. */
export const sqlErrorOf = (cause: Cause.Cause<unknown>): SqlError.SqlError => {
  const found: Array<SqlError.SqlError> = []
  for (const reason of cause.reasons) {
    const value = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (SqlError.isSqlError(value)) found.push(value)
  }
  const connection = found.find((error) => error.reason._tag === "ConnectionError")
  if (connection !== undefined) return connection
  if (found[0] !== undefined) return found[0]
  return new SqlError.SqlError({
    reason: new SqlError.UnknownError({ cause: Cause.squash(cause), message: "the SQL client raised a defect", operation: "transaction" })
  })
}
