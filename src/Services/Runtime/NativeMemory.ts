import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

/** Returns the process's free malloc memory to the system; true when there was some to return. */
export type Trim = () => boolean

/**
 * glibc's `malloc_trim(0)` through `node:ffi` (Node 26.1 and later): undefined on an older Node,
 * with `--no-experimental-ffi`, under the permission model without `--allow-ffi`, or on a C
 * library without it (musl, macOS). Loading `node:ffi` prints an experimental-feature warning
 * meant for code that calls arbitrary native functions; this calls one function of glibc with
 * its exact signature, so the warning is kept out of the gateway's output.
 */
export const mallocTrim = (): Trim | undefined => {
  const emitWarning = process.emitWarning
  let ffi: typeof import("node:ffi") | undefined
  try {
    process.emitWarning = () => {}
    ffi = process.getBuiltinModule("node:ffi")
  } catch {
    return undefined
  } finally {
    process.emitWarning = emitWarning
  }
  if (ffi === undefined) return undefined
  try {
    const { malloc_trim } = ffi.dlopen(null, { malloc_trim: { arguments: ["uint64"], return: "int32" } }).functions
    return () => malloc_trim(0n) === 1
  } catch {
    return undefined
  }
}

/**
 * Gives back the native memory a burst leaves behind. Socket and body buffers are malloc'd
 * and freed out of order, and glibc returns freed memory to the system only from the top of a
 * heap: after a load, tens of MB stay resident, free, for the life of the process.
 * `malloc_trim(0)` releases every free page wherever it is; run every
 * `server.malloc_trim_seconds` (0: never), it costs a few milliseconds per call.
 */
export class NativeMemory extends Context.Service<
  NativeMemory,
  {
    /** Whether this runtime can trim at all. */
    readonly available: boolean
    /** True when memory was returned to the system. */
    readonly trim: Effect.Effect<boolean>
  }
>()("gateway/NativeMemory") {
  static readonly layerWith = (trim: Trim | undefined) =>
    Layer.effect(
      NativeMemory,
      Effect.gen(function* () {
        const seconds = (yield* GatewayConfigFile).config.server.malloc_trim_seconds
        const run = Effect.fn("NativeMemory.trim")(function* () {
          if (trim === undefined) return false
          const released = trim()
          yield* Effect.annotateCurrentSpan("released", released)
          return released
        })
        const service = NativeMemory.of({ available: trim !== undefined, trim: Effect.suspend(run) })
        if (trim !== undefined && seconds > 0) {
          yield* Effect.forkScoped(Effect.forever(Effect.delay(service.trim, Duration.seconds(seconds))))
        }
        return service
      })
    )

  static readonly layer = Layer.unwrap(Effect.sync(() => NativeMemory.layerWith(mallocTrim())))
}
