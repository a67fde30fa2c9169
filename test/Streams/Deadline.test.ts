import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { GatewayError, UpstreamFailure } from "../../src/Domain/GatewayError.ts"
import { makeDeadline, within, withDeadline } from "../../src/Streams/Deadline.ts"

const late = () => Effect.fail("late" as const)

describe("withDeadline", () => {
  it.live("returns the work's result when it finishes in time, sync or async", () =>
    Effect.gen(function* () {
      expect(yield* withDeadline(Effect.succeed(1), 1000, late)).toBe(1)
      expect(yield* withDeadline(Effect.as(Effect.sleep(5), 2), 1000, late)).toBe(2)
      expect(yield* Effect.exit(withDeadline(Effect.fail("boom" as const), 1000, late))).toEqual(Exit.fail("boom"))
    }))

  it.live("answers with orElse at the deadline and interrupts the work", () =>
    Effect.gen(function* () {
      const interrupted = yield* Deferred.make<void>()
      const started = Date.now()
      const result = yield* Effect.exit(withDeadline(Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))), 50, late))
      expect(result).toEqual(Exit.fail("late"))
      expect(Date.now() - started).toBeGreaterThanOrEqual(45)
      yield* Deferred.await(interrupted).pipe(Effect.timeout(1000))
    }))

  it.live("interrupting the caller interrupts the work", () =>
    Effect.gen(function* () {
      const interrupted = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(withDeadline(Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))), 10_000, late))
      yield* Effect.sleep(10)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted).pipe(Effect.timeout(1000))
    }))

  it.effect("keeps to the test clock when one is installed", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.exit(withDeadline(Effect.never, 30_000, late)))
      yield* TestClock.adjust("29 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toEqual(Exit.fail("late"))
    }))
})

describe("a request's Deadline value", () => {
  const error = () => new GatewayError({ reason: new UpstreamFailure({ message: "late", provider: "gateway", kind: "timeout" }) })

  it.effect("counts down on the clock it was made with, and cuts work off with its one error", () =>
    Effect.gen(function* () {
      const deadline = yield* Effect.clockWith((clock) => Effect.succeed(makeDeadline(clock, 1_000, error)))
      expect(deadline.left()).toBe(1_000)
      const fiber = yield* Effect.forkChild(Effect.exit(within(Effect.never, deadline)))
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect(deadline.left()).toBe(1)
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.join(fiber)
      expect(exit).toEqual(Exit.fail(deadline.error()))
      // The same object every time: the router tells a cut-off attempt from a provider's failure by it.
      expect(deadline.error()).toBe(deadline.error())
      expect(deadline.left()).toBe(0)
    }))

  it.effect("lets work that ends in time through, and ends its timer with it", () =>
    Effect.gen(function* () {
      const deadline = yield* Effect.clockWith((clock) => Effect.succeed(makeDeadline(clock, 1_000, error)))
      const fiber = yield* Effect.forkChild(within(Effect.as(Effect.sleep("10 millis"), "done"), deadline))
      yield* TestClock.adjust("10 millis")
      expect(yield* Fiber.join(fiber)).toBe("done")
    }))
})
