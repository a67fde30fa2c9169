import type { IncomingMessage } from "node:http"
import type { Socket } from "node:net"
import { watchQuiet } from "./QuietWatch.ts"

const unwatched = () => {}

/**
 * Watches a request body for a stall: `onStall` runs once its connection has received nothing
 * for `stallMs` (never sooner, at most a quarter later: QuietWatch.ts); the returned function
 * stops the watch. The socket is not closed here: the caller answers first (a 408 with
 * `Connection: close`).
 */
export const watchBodyStall = (source: IncomingMessage, stallMs: number, onStall: () => void): (() => void) => {
  const socket = source.socket as Socket | null
  // Usually the whole body came with the headers: nothing left to wait for, nothing to watch.
  if (source.complete || socket === null) return unwatched
  return watchQuiet(() => socket.bytesRead, stallMs, onStall)
}
