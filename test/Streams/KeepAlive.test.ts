import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { withKeepAlive } from "../../src/Streams/KeepAlive.ts"

const encode = (batch: ReadonlyArray<number>) => batch.join(",")

describe("withKeepAlive", () => {
  it.live("encodes each batch once and passes failures through after the data", () =>
    Effect.gen(function* () {
      const source = Stream.fromArrays([1, 2], [3]).pipe(Stream.concat(Stream.fail("boom" as const)))
      const exit = yield* Effect.exit(Stream.runCollect(withKeepAlive(source, 1000, "ka", encode)))
      expect(exit._tag).toBe("Failure")
      const frames = yield* Stream.runCollect(withKeepAlive(Stream.fromArrays([1, 2], [3]), 1000, "ka", encode))
      expect(frames).toEqual(["1,2", "3"])
    }))

  it.live("sends the frame while the source is silent, then the batch that was pending", () =>
    Effect.gen(function* () {
      const source = Stream.make(1).pipe(Stream.concat(Stream.fromEffect(Effect.as(Effect.sleep(130), 2))))
      const frames = yield* Stream.runCollect(withKeepAlive(source, 50, "ka", encode))
      expect(frames[0]).toBe("1")
      expect(frames.at(-1)).toBe("2")
      const alive = frames.filter((f) => f === "ka").length
      expect(alive).toBeGreaterThanOrEqual(2)
      expect(alive).toBeLessThanOrEqual(3)
    }))

  it.effect("keeps to the test clock when one is installed", () =>
    Effect.gen(function* () {
      const source = Stream.fromEffect(Effect.as(Effect.sleep("25 seconds"), 7))
      const fiber = yield* Effect.forkChild(Stream.runCollect(withKeepAlive(source, 10_000, "ka", encode)))
      for (let i = 0; i < 5; i++) yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toEqual(["ka", "ka", "7"])
    }))
})
