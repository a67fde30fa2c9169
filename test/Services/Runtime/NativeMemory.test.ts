import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { runInNewContext } from "node:vm"
import { setFlagsFromString } from "node:v8"
import { decodeConfig, GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { mallocTrim, NativeMemory } from "../../../src/Services/Runtime/NativeMemory.ts"

const configLayer = (server: Record<string, unknown>) =>
  Layer.unwrap(Effect.map(decodeConfig("<test>", { server }, {}), (config) => GatewayConfigFile.fromConfig(config)))

const counting = () => {
  const calls = { count: 0 }
  return { calls, trim: () => ++calls.count > 0 }
}

describe("NativeMemory", () => {
  it.effect("trims every server.malloc_trim_seconds", () => {
    const { calls, trim } = counting()
    return Effect.gen(function* () {
      yield* NativeMemory
      assert.strictEqual(calls.count, 0)
      yield* TestClock.adjust("9 seconds")
      assert.strictEqual(calls.count, 0)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(calls.count, 1)
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(calls.count, 4)
    }).pipe(Effect.provide(NativeMemory.layerWith(trim).pipe(Layer.provide(configLayer({})))))
  })

  it.effect("never trims on its own with malloc_trim_seconds 0, but trims when asked", () => {
    const { calls, trim } = counting()
    return Effect.gen(function* () {
      const memory = yield* NativeMemory
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual(calls.count, 0)
      assert.isTrue(yield* memory.trim)
      assert.strictEqual(calls.count, 1)
    }).pipe(Effect.provide(NativeMemory.layerWith(trim).pipe(Layer.provide(configLayer({ malloc_trim_seconds: 0 })))))
  })

  it.effect("without malloc_trim it is unavailable and trimming does nothing", () =>
    Effect.gen(function* () {
      const memory = yield* NativeMemory
      assert.isFalse(memory.available)
      yield* TestClock.adjust("1 minute")
      assert.isFalse(yield* memory.trim)
    }).pipe(Effect.provide(NativeMemory.layerWith(undefined).pipe(Layer.provide(configLayer({}))))))

  it.effect("rejects a negative interval, naming the key", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(decodeConfig("<test>", { server: { malloc_trim_seconds: -1 } }, {}))
      assert.include(String(error.message), "server.malloc_trim_seconds")
    }))

  // The CI's Node (the pinned devDependency, 26.x on glibc Linux) has node:ffi; an older Node
  // or another C library has no malloc_trim, and the gateway then runs without trimming.
  const available = mallocTrim() !== undefined && process.platform === "linux"
  it.runIf(available)("returns memory that glibc kept after it was freed", async () => {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    const trim = mallocTrim()!
    trim()
    const rss = () => process.memoryUsage.rss() / 1e6
    // 8 KB buffers come from malloc's heap, not their own mappings; keeping one in 16 alive
    // leaves the freed ones between live ones, where glibc cannot give them back on its own.
    let buffers: Array<Buffer> | undefined = Array.from({ length: 16_384 }, () => Buffer.allocUnsafeSlow(8192).fill(7))
    const kept = buffers.filter((_, i) => i % 16 === 0)
    const withBuffers = rss()
    buffers = undefined
    gc()
    gc()
    // V8 may free the buffers' memory on a background thread after the collection.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const freed = rss()
    assert.isTrue(trim())
    const trimmed = rss()
    assert.isAbove(freed - trimmed, 50, `with the buffers ${withBuffers} MB, after freeing them ${freed}, after the trim ${trimmed}`)
    assert.strictEqual(kept.length, 1024)
  })
})
