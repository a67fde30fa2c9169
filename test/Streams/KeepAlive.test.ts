import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import { firstWithin, idleTicker } from "../../src/Streams/KeepAlive.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("firstWithin", () => {
  it.live("gives the read's outcome when it comes within the interval", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const ok = yield* firstWithin(Effect.as(Effect.sleep(5), 1), 1000, scope)
      expect(ok).toEqual({ _tag: "Done", exit: Exit.succeed(1) })
      const failed = yield* firstWithin(Effect.fail("boom"), 1000, scope)
      expect(failed._tag === "Done" && Exit.isFailure(failed.exit)).toBe(true)
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("leaves a slow read running, to be joined later", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const first = yield* firstWithin(Effect.as(Effect.sleep(80), 7), 20, scope)
      expect(first._tag).toBe("Pending")
      if (first._tag === "Pending") expect(yield* Fiber.join(first.fiber)).toBe(7)
      yield* Scope.close(scope, Exit.void)
    }))

  it.live("the pending read ends with its scope (the request)", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const first = yield* firstWithin(Effect.never, 10, scope)
      expect(first._tag).toBe("Pending")
      yield* Scope.close(scope, Exit.void)
      if (first._tag === "Pending") expect(Exit.hasInterrupts(yield* Fiber.await(first.fiber))).toBe(true)
    }))

  it.effect("keeps to the test clock when one is installed", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const waiting = yield* Effect.forkChild(firstWithin(Effect.as(Effect.sleep("25 seconds"), 7), 10_000, scope))
      yield* TestClock.adjust("10 seconds")
      const first = yield* Fiber.join(waiting)
      expect(first._tag).toBe("Pending")
      yield* TestClock.adjust("15 seconds")
      if (first._tag === "Pending") expect(yield* Fiber.join(first.fiber)).toBe(7)
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("idleTicker", () => {
  it("writes after each interval of silence, and not while touched", async () => {
    let ticks = 0
    const ticker = idleTicker(40, () => ticks++)
    for (let i = 0; i < 6; i++) {
      await sleep(15)
      ticker.touch()
    }
    expect(ticks).toBe(0)
    await sleep(130)
    expect(ticks).toBeGreaterThanOrEqual(2)
    expect(ticks).toBeLessThanOrEqual(3)
    ticker.stop()
    const stoppedAt = ticks
    await sleep(100)
    expect(ticks).toBe(stoppedAt)
  })
})
