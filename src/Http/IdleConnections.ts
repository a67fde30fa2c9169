import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

type Connection = Socket & { _httpMessage?: ServerResponse | null }

/** What a connection had read and written at the last sweep, and when it was last seen busy. */
interface Seen {
  read: number
  written: number
  activeAt: number
}

/** A connection idle this long is closed (longer than common load balancer idle timeouts, so they close first). */
export const idleConnectionMs = 65_000

/**
 * Closes connections that sat idle (no response in progress, no byte read or written) for `idleMs`,
 * never sooner and at most a quarter of `idleMs` later. This is what Node's `keepAliveTimeout` does,
 * but Node arms a timer on the socket after every response, clears it when the next request arrives
 * and re-arms it at every read in between: about 7% of a chat request's CPU at concurrency 64
 * (bench/NOTES.md). Here one sweep every quarter of `idleMs` compares each connection's byte counts
 * with the last sweep's; nothing runs per request. The server must have `keepAliveTimeout: 0`.
 *
 * A connection counts as active at a sweep that finds it busy or with bytes moved since the last one,
 * so the time since then is a lower bound of its idle time: it is never closed early. The sweep stops
 * while there are no connections and its timer never keeps the process alive.
 */
export const closeIdleConnections = (server: Server, idleMs: number = idleConnectionMs, now: () => number = Date.now): Server => {
  const connections = new Map<Connection, Seen>()
  const everyMs = Math.max(1, Math.floor(idleMs / 4))
  let sweeper: NodeJS.Timeout | undefined

  const sweep = () => {
    const at = now()
    for (const [socket, seen] of connections) {
      const response = socket._httpMessage
      const busy = response != null && !response.writableFinished
      if (busy || socket.bytesRead !== seen.read || socket.bytesWritten !== seen.written) {
        seen.read = socket.bytesRead
        seen.written = socket.bytesWritten
        seen.activeAt = at
      } else if (at - seen.activeAt >= idleMs) {
        connections.delete(socket)
        socket.destroy()
      }
    }
  }
  const stop = () => {
    clearInterval(sweeper)
    sweeper = undefined
  }

  server.on("connection", (socket: Connection) => {
    connections.set(socket, { read: socket.bytesRead, written: socket.bytesWritten, activeAt: now() })
    if (sweeper === undefined) {
      sweeper = setInterval(sweep, everyMs)
      sweeper.unref()
    }
    socket.once("close", () => {
      connections.delete(socket)
      if (connections.size === 0) stop()
    })
  })
  server.once("close", stop)
  return server
}
