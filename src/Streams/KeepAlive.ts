import type * as Exit from "effect/Exit"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { awaitWithin } from "./Deadline.ts"

/**
 * Keep-alive for an SSE response, in two parts so that no chunk pays for it.
 *
 * Until the first frame, the response has not started, so a keep-alive has to be its first
 * frame: `firstWithin` runs the first read in its own fiber and gives up waiting after the
 * interval, leaving the read running. After that, `idleTicker` writes the keep-alive beside the
 * response body whenever nothing was written for the interval; a chunk only re-arms a timer.
 * A relay fiber per stream (read ahead, hand over, wake the writer) cost three fiber
 * suspensions per chunk instead of one.
 */

/** The first read's outcome within `ms`, or the read still running (it belongs to `scope`). */
export type First<A, E> =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<A, E> }
  | { readonly _tag: "Pending"; readonly fiber: Fiber.Fiber<A, E> }

export const firstWithin = <A, E>(read: Effect.Effect<A, E>, ms: number, scope: Scope.Scope): Effect.Effect<First<A, E>> =>
  Effect.flatMap(Effect.forkIn(read, scope, { startImmediately: true }), (fiber) =>
    Effect.map(awaitWithin(fiber, ms), (exit): First<A, E> => (exit === undefined ? { _tag: "Pending", fiber } : { _tag: "Done", exit })))

export interface IdleTicker {
  /** Something was written: the next keep-alive is due a full interval from now. */
  readonly touch: () => void
  readonly stop: () => void
}

/**
 * Calls `write` every `ms` of silence, until stopped. One Node timer per stream, re-armed with
 * `refresh()`, so a chunk costs no allocation.
 */
export const idleTicker = (ms: number, write: () => void): IdleTicker => {
  let stopped = false
  const timer: NodeJS.Timeout = setTimeout(() => {
    if (stopped) return
    write()
    timer.refresh()
  }, ms)
  timer.unref()
  return {
    touch: () => {
      if (!stopped) timer.refresh()
    },
    stop: () => {
      stopped = true
      clearTimeout(timer)
    }
  }
}
