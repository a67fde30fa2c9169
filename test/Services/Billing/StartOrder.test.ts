import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { inStartOrder } from "../../../src/Services/Billing/StartOrder.ts"

/** Two overlapping reloads finishing in either order: what stays applied is the later one's. */
describe("reloads applied in the order they started", () => {
  const run = (finishFirst: "earlier" | "later") =>
    Effect.gen(function* () {
      const earlier = yield* Deferred.make<string>()
      const later = yield* Deferred.make<string>()
      const applied: Array<string> = []
      const loads = [earlier, later]
      let next = 0
      const reload = inStartOrder(Effect.suspend(() => Deferred.await(loads[next++]!)), (value) => void applied.push(value))
      const first = yield* Effect.forkChild(reload)
      const second = yield* Effect.forkChild(reload)
      yield* Effect.yieldNow
      if (finishFirst === "earlier") {
        yield* Deferred.succeed(earlier, "before the change")
        yield* Fiber.join(first)
        yield* Deferred.succeed(later, "after the change")
      } else {
        yield* Deferred.succeed(later, "after the change")
        yield* Fiber.join(second)
        yield* Deferred.succeed(earlier, "before the change")
      }
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      return applied
    })

  it.effect("the later load finishing last replaces the earlier one", () =>
    Effect.map(run("earlier"), (applied) => expect(applied).toEqual(["before the change", "after the change"])))

  it.effect("the earlier load finishing last is dropped", () =>
    Effect.map(run("later"), (applied) => expect(applied).toEqual(["after the change"])))
})
