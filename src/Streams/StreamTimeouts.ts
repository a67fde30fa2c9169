import { Effect, Stream } from "effect"
import { withDeadline } from "../Services/Deadline.ts"

/**
 * Bounds the wait for a stream's first element and, when `idleMs` is given, every later wait.
 * Enforced per pull on the body itself, not only on response headers.
 */
export const withStreamTimeouts = <A, E>(
  stream: Stream.Stream<A, E>,
  options: {
    readonly firstMs: number
    readonly idleMs?: number | undefined
    readonly onFirst: () => E
    readonly onIdle?: (() => E) | undefined
  }
): Stream.Stream<A, E> =>
  Stream.transformPull(stream, (pull) =>
    Effect.sync(() => {
      const { idleMs, onIdle } = options
      const idle = idleMs === undefined || onIdle === undefined ? pull : withDeadline(pull, idleMs, () => Effect.fail(onIdle()))
      let first = true
      return Effect.suspend(() => {
        if (!first) return idle
        first = false
        return withDeadline(pull, options.firstMs, () => Effect.fail(options.onFirst()))
      })
    }))
