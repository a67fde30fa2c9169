import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { batchStage, type StageEnd } from "../../src/Streams/BatchStage.ts"

/** Batches of numbers as they come, one batch per pull. */
const batches = (...groups: Array<Array<number>>) => Stream.fromIterable(groups).pipe(Stream.flatMap((group) => Stream.fromIterable(group).pipe(Stream.rechunk(group.length))))

describe("batchStage", () => {
  it.effect("turns each batch into a batch of outputs, reads on past batches that give none, and flushes at the end", () =>
    Effect.gen(function* () {
      const seen: Array<ReadonlyArray<number>> = []
      const out = yield* Stream.runCollect(
        batchStage(batches([1, 2], [3], [4, 5, 6]), () => ({
          step: (batch) => {
            seen.push(batch)
            return batch.filter((n) => n % 2 === 0).map((n) => `even ${n}`)
          },
          flush: () => ["end"]
        }))
      )
      expect(seen).toEqual([[1, 2], [3], [4, 5, 6]])
      expect(out).toEqual(["even 2", "even 4", "even 6", "end"])
    }))

  it.effect("done: what the step returned goes out, then the output ends and the input is not read again", () =>
    Effect.gen(function* () {
      let reads = 0
      const out = yield* Stream.runCollect(
        batchStage(batches([1], [2, 99], [3]), (end) => ({
          step: (batch) => {
            reads++
            if (batch.includes(99)) end.done()
            return batch.filter((n) => n !== 99)
          },
          flush: () => [-1]
        }))
      )
      expect(out).toEqual([1, 2])
      expect(reads).toBe(2)
    }))

  it.effect("fail: what the step returned goes out, then the output fails", () =>
    Effect.gen(function* () {
      const collected: Array<number> = []
      const exit = yield* Effect.exit(
        Stream.runForEach(
          batchStage(batches([1], [2, -1], [3]), (end: StageEnd<string>) => ({
            step: (batch) => {
              if (batch.includes(-1)) end.fail("broken")
              return batch.filter((n) => n > 0)
            }
          })),
          (n) => Effect.sync(() => collected.push(n))
        )
      )
      expect(collected).toEqual([1, 2])
      expect(exit).toEqual(Exit.fail("broken"))
    }))

  it.effect("a flush may fail the output when the input ended too soon", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Stream.runCollect(batchStage(batches([1]), (end: StageEnd<string>) => ({
        step: (batch) => batch,
        flush: () => {
          end.fail("ended early")
          return []
        }
      }))))
      expect(exit).toEqual(Exit.fail("ended early"))
    }))
})
