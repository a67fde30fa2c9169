import type { IncomingMessage } from "node:http"
import type { Socket } from "node:net"

/**
 * Watches request bodies for stalls: `onStall` runs once a body's connection has received
 * nothing for `stallMs`. Every body being read is checked by one shared sweep, which compares
 * the socket's byte count with the last sweep's, instead of a timer per request: arming and
 * disarming a socket timer (with its `timeout` listener) on every request cost the chat path
 * about 2% of its CPU, and the socket then restarted that timer on each read and write.
 *
 * The sweep runs while some body is watched, every quarter of the shortest stall it watches
 * (at most once a second), so a stall is noticed between `stallMs` and a quarter later; never
 * before. The sweep's timer is unref'd: it never keeps the process alive.
 */

interface Watch {
  readonly socket: Socket
  readonly stallMs: number
  readonly onStall: () => void
  bytes: number
  quietSince: number
}

const watched = new Set<Watch>()
let sweeper: ReturnType<typeof setInterval> | undefined
let sweepMs = Number.POSITIVE_INFINITY

const sweepEvery = (stallMs: number): number => Math.max(10, Math.min(1000, Math.floor(stallMs / 4)))

const sweep = () => {
  if (watched.size === 0) {
    clearInterval(sweeper)
    sweeper = undefined
    sweepMs = Number.POSITIVE_INFINITY
    return
  }
  const now = Date.now()
  for (const watch of watched) {
    const bytes = watch.socket.bytesRead
    if (bytes !== watch.bytes) {
      watch.bytes = bytes
      watch.quietSince = now
    } else if (now - watch.quietSince >= watch.stallMs) {
      watched.delete(watch)
      watch.onStall()
    }
  }
}

const startSweeping = (stallMs: number) => {
  const every = sweepEvery(stallMs)
  if (sweeper !== undefined && every >= sweepMs) return
  if (sweeper !== undefined) clearInterval(sweeper)
  sweepMs = every
  sweeper = setInterval(sweep, every)
  sweeper.unref()
}

const unwatched = () => {}

/**
 * Starts watching `source`'s body; the returned function stops it. The socket is not closed
 * here: the caller answers first (a 408 with `Connection: close`).
 */
export const watchBodyStall = (source: IncomingMessage, stallMs: number, onStall: () => void): (() => void) => {
  const socket = source.socket as Socket | null
  // Usually the whole body came with the headers: nothing left to wait for, nothing to watch.
  if (source.complete || socket === null) return unwatched
  const watch: Watch = { socket, stallMs, onStall, bytes: socket.bytesRead, quietSince: Date.now() }
  watched.add(watch)
  startSweeping(stallMs)
  return () => {
    watched.delete(watch)
  }
}
