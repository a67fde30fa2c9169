import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { GatewayError, RateLimited } from "../../Domain/GatewayError.ts"

/** Runs `effect` in one of the caller's project's slots; a 429 when none frees up in time. */
export type ProjectSlots = <A, E, R>(projectId: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | GatewayError, R>

const busy = (permits: number) =>
  new GatewayError({
    reason: new RateLimited({
      message: `This project already runs ${permits} tool call${permits === 1 ? "" : "s"} at once; retry when one has finished.`,
      retryAfterMs: 1000
    })
  })

/**
 * Bounds the tool calls one project runs at once on this instance (web fetches hold sockets
 * and parse on the event loop). A call waits up to `waitMs` for a slot. The semaphores live
 * only while a project has calls in flight, so the map does not grow with the number of
 * projects; a bound across instances would need Redis, which this limit does not claim to be.
 */
export const makeProjectSlots = (permits: number, waitMs: number): ProjectSlots => {
  const gates = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  return (projectId, effect) =>
    Effect.suspend(() => {
      let gate = gates.get(projectId)
      if (gate === undefined) {
        gate = { semaphore: Semaphore.makeUnsafe(permits), users: 0 }
        gates.set(projectId, gate)
      }
      const current = gate
      current.users++
      const acquire =
        waitMs === 0
          ? Effect.flatMap(Semaphore.takeIfAvailable(current.semaphore, 1), (taken) => (taken ? Effect.void : Effect.fail(busy(permits))))
          : Semaphore.take(current.semaphore, 1).pipe(
            Effect.asVoid,
            Effect.timeoutOrElse({ duration: Duration.millis(waitMs), orElse: () => Effect.fail(busy(permits)) })
          )
      return Effect.acquireUseRelease(acquire, () => effect, () => Semaphore.release(current.semaphore, 1)).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            current.users--
            if (current.users === 0) gates.delete(projectId)
          })
        )
      )
    })
}
