import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { withDeadline } from "./Deadline.ts"

/**
 * Bounds the wait for a stream's first element, enforced on the pull itself and not only on
 * response headers. Later waits are bounded by the upstream exchange's idle timeout.
 */
export const withStreamTimeouts = <A, E>(
  stream: Stream.Stream<A, E>,
  options: {
    readonly firstMs: number
    readonly onFirst: () => E
  }
): Stream.Stream<A, E> =>
  Stream.transformPull(stream, (pull) =>
    Effect.sync(() => {
      let first = true
      return Effect.suspend(() => {
        if (!first) return pull
        first = false
        return withDeadline(pull, options.firstMs, () => Effect.fail(options.onFirst()))
      })
    }))
