import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { toolCallCostNanoUsd } from "../../../src/Domain/ToolCost.ts"
import { makeProjectSlots } from "../../../src/Services/Tools/ProjectSlots.ts"

describe("per-project slots", () => {
  it.live("runs up to the bound at once per project, then waits, then answers 429", () =>
    Effect.gen(function* () {
      const slots = makeProjectSlots(2, 100)
      const release = yield* Deferred.make<void>()
      const holding = Effect.andThen(Deferred.await(release), Effect.succeed("done"))
      const first = yield* Effect.forkChild(slots("p1", holding))
      const second = yield* Effect.forkChild(slots("p1", holding))
      yield* Effect.sleep("20 millis")
      // Another project has slots of its own.
      expect(yield* slots("p2", Effect.succeed("other"))).toBe("other")
      const third = yield* Effect.exit(slots("p1", Effect.succeed("late")))
      expect(Exit.isFailure(third)).toBe(true)
      const reason = Exit.isFailure(third) ? third.cause.reasons.find((r) => r._tag === "Fail") : undefined
      expect(reason?._tag === "Fail" ? reason.error.reason : undefined).toMatchObject({ _tag: "RateLimited", retryAfterMs: 1000 })
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe("done")
      expect(yield* Fiber.join(second)).toBe("done")
      expect(yield* slots("p1", Effect.succeed("again"))).toBe("again")
    }))

  it.live("a waiting call gets the slot a finished one frees, and a failed call frees its slot", () =>
    Effect.gen(function* () {
      const slots = makeProjectSlots(1, 1000)
      const failed = yield* Effect.exit(slots("p", Effect.fail("boom")))
      expect(Exit.isFailure(failed)).toBe(true)
      const slow = yield* Effect.forkChild(slots("p", Effect.as(Effect.sleep("50 millis"), 1)))
      yield* Effect.sleep("5 millis")
      expect(yield* slots("p", Effect.succeed(2))).toBe(2)
      expect(yield* Fiber.join(slow)).toBe(1)
    }))
})

describe("tool prices", () => {
  it("are integer nano-dollars per call", () => {
    const prices = { scrape: 0.002, search: 0.0051, map: 0 }
    expect(toolCallCostNanoUsd(prices, "scrape")).toBe(2_000_000)
    expect(toolCallCostNanoUsd(prices, "search")).toBe(5_100_000)
    expect(toolCallCostNanoUsd(prices, "map")).toBe(0)
  })
})
