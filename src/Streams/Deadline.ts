import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"

/** The clock of a real run (tests swap in `TestClock`, whose time Node timers do not follow). */
export const liveClock = Effect.runSync(Effect.clockWith(Effect.succeed))

/**
 * Waits up to `ms` for `fiber` to end and returns its exit, or `undefined` when it is still
 * running then (it is left running). With the live clock the wait is a plain Node timer,
 * cleared as soon as the fiber ends; under another clock (tests use `TestClock`) the time must
 * come from that clock, so Effect's own timeout is used.
 */
export const awaitWithin = <A, E>(fiber: Fiber.Fiber<A, E>, ms: number): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.withFiber((self) => {
    const done = fiber.pollUnsafe()
    if (done !== undefined) return Effect.succeed(done)
    if (self.getRef(Clock.Clock) !== liveClock) {
      return Effect.map(Effect.timeoutOption(Fiber.await(fiber), ms), Option.getOrUndefined)
    }
    return Effect.callback<Exit.Exit<A, E> | undefined>((resume) => {
      let settled = false
      const timer = setTimeout(() => {
        if (settled) return
        settled = true
        removeObserver()
        resume(Effect.succeed(undefined))
      }, ms)
      const removeObserver = fiber.addObserver((exit) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(Effect.succeed(exit))
      })
      return Effect.sync(() => {
        settled = true
        clearTimeout(timer)
        removeObserver()
      })
    })
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
