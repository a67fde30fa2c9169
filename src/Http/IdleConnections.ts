import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

type Connection = Socket & { _httpMessage?: ServerResponse | null }

/** What a connection had read and written at the last sweep, and when it was last seen busy. */
interface Seen {
  read: number
  written: number
  activeAt: number
}

/** Node's own timer per socket, which this replaces: every call is Node's keep-alive handling (see below). */
function timerLeftToTheSweep<T>(this: T): T {
  return this
}

/**
 * Closes connections that sat idle (no response in progress, no byte read or written) for the
 * server's `keepAliveTimeout`, never sooner and at most a quarter of it later, in place of Node's
 * timer. Node arms that timer on the socket after every response, clears it when the next request
 * arrives and re-arms it at every read in between: about 7% of a chat request's CPU at concurrency
 * 64 (bench/NOTES.md). Here one sweep every quarter of the time compares each connection's byte
 * counts with the last sweep's; nothing runs per request. The server keeps its `keepAliveTimeout`,
 * so responses still carry `Keep-Alive: timeout=N` and clients stop reusing a connection before it
 * is closed; its sockets' `setTimeout` is a no-op (nothing else of the server's sets one:
 * `server.timeout` is 0 and bodies have their own watch, BodyStallWatch.ts).
 *
 * A connection counts as active at a sweep that finds it busy or with bytes moved since the last one,
 * so the time since then is a lower bound of its idle time: it is never closed early. The sweep stops
 * while there are no connections and its timer never keeps the process alive.
 */
export const closeIdleConnections = (server: Server, now: () => number = Date.now): Server => {
  const idleMs = server.keepAliveTimeout
  if (!(idleMs > 0)) return server
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
    socket.setTimeout = timerLeftToTheSweep
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
