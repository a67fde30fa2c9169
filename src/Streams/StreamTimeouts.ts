import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { type Deadline, within } from "./Deadline.ts"

/**
 * Bounds the wait for a stream's first element by the request's deadline, enforced on the pull
 * itself and not only on response headers. Later waits are bounded by the upstream exchange's
 * idle timeout.
 */
export const withStreamTimeouts = <A, E>(stream: Stream.Stream<A, E>, deadline: Deadline): Stream.Stream<A, E | GatewayError> =>
  Stream.transformPull(stream, (pull) =>
    Effect.sync(() => {
      let first = true
      return Effect.suspend(() => {
        if (!first) return pull
        first = false
        return within(pull, deadline)
      })
    }))
