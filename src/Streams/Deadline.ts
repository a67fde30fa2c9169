import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import type { GatewayError } from "../Domain/GatewayError.ts"

const noop = () => {}

/**
 * The request's routing deadline as a value: made once per request by the routing service
 * (`Services/Routing/RoutingDeadline.ts`, the one owner of the setting and its message) and
 * handed to whatever runs an attempt. Times are read from the clock it was made with, so a
 * test's `TestClock` drives it like any other timer.
 */
export interface Deadline {
  /** The instant it passes, in the clock's epoch milliseconds. */
  readonly at: number
  /** Milliseconds left (negative once passed). */
  readonly left: () => number
  /** The one answer to a request cut off by it; made on first need (an error captures a stack), then the same object. */
  readonly error: () => GatewayError
}

export const makeDeadline = (clock: Clock.Clock, ms: number, error: () => GatewayError): Deadline => {
  const at = clock.currentTimeMillisUnsafe() + ms
  let made: GatewayError | undefined
  return {
    at,
    left: () => at - clock.currentTimeMillisUnsafe(),
    error: () => (made ??= error())
  }
}

/**
 * Waits up to `ms` for `fiber` to end and returns its exit, or `undefined` when it is still
 * running then (it is left running). The wait is the current clock's `sleep` in a child
 * fiber, interrupted (its timer cleared) as soon as the fiber ends; under a `TestClock` the
 * same code follows the test's time.
 */
export const awaitWithin = <A, E>(fiber: Fiber.Fiber<A, E>, ms: number): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.suspend(() => {
    const done = fiber.pollUnsafe()
    if (done !== undefined) return Effect.succeed(done)
    return Effect.flatMap(Effect.forkChild(Effect.sleep(Duration.millis(Math.max(0, ms))), { startImmediately: true }), (sleeper) =>
      Effect.callback<Exit.Exit<A, E> | undefined>((resume) => {
        let settled = false
        // Either observer may run at once (a fiber already ended calls it back in `addObserver`).
        let removeSleeper = noop
        let removeWork = noop
        removeWork = fiber.addObserver((exit) => {
          if (settled) return
          settled = true
          removeSleeper()
          sleeper.interruptUnsafe()
          resume(Effect.succeed(exit))
        })
        if (settled) return
        removeSleeper = sleeper.addObserver(() => {
          if (settled) return
          settled = true
          removeWork()
          resume(Effect.succeed(undefined))
        })
        return Effect.sync(() => {
          settled = true
          removeSleeper()
          removeWork()
          sleeper.interruptUnsafe()
        })
      }))
  })

/**
 * `Effect.timeoutOrElse` for the request path. That one races two forked fibers, and the
 * losing sleeper stays alive, with its timer, until the enclosing fiber ends (on a stream: one
 * per pull). Here the work runs in one child fiber and the wait is `awaitWithin`; the work is
 * interrupted when the time is up or when the caller is.
 */
export const withDeadline = <A, E, R, E2>(
  self: Effect.Effect<A, E, R>,
  ms: number,
  orElse: () => Effect.Effect<never, E2>
): Effect.Effect<A, E | E2, R> =>
  Effect.flatMap(Effect.forkChild(self, { startImmediately: true }), (child) => {
    // Not awaited: the answer does not wait for the work's finalizers.
    const stop = Effect.sync(() => child.interruptUnsafe())
    return awaitWithin(child, ms).pipe(
      Effect.onInterrupt(() => stop),
      Effect.flatMap((exit): Effect.Effect<A, E | E2> => (exit === undefined ? Effect.andThen(stop, orElse()) : exit))
    )
  })

/** `self` cut off at `deadline`, failing with its one error then. */
export const within = <A, E, R>(self: Effect.Effect<A, E, R>, deadline: Deadline): Effect.Effect<A, E | GatewayError, R> =>
  withDeadline(self, deadline.left(), () => Effect.fail(deadline.error()))
