import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { type Progress, watchQuiet } from "./QuietWatch.ts"

type Connection = Socket & { _httpMessage?: ServerResponse | null }

/** Node's own timer per socket, which this replaces: every call is Node's keep-alive handling (see below). */
function timerLeftToTheSweep<T>(this: T): T {
  return this
}

/** Busy while a response is in progress; otherwise the bytes moved either way. */
const progressOf = (socket: Connection): Progress => () => {
  const response = socket._httpMessage
  return response != null && !response.writableFinished ? "busy" : socket.bytesRead + socket.bytesWritten
}

/**
 * Closes connections that sat idle (no response in progress, no byte read or written) for the
 * server's `keepAliveTimeout`, never sooner and at most a quarter of it (or a second) later, in
 * place of Node's timer. Node arms that timer on the socket after every response, clears it when
 * the next request arrives and re-arms it at every read in between: about 7% of a chat request's
 * CPU at concurrency 64 (bench/NOTES.md). Here each connection is on the shared quiet watch
 * (QuietWatch.ts); nothing runs per request. The server keeps its `keepAliveTimeout`, so responses
 * still carry `Keep-Alive: timeout=N` and clients stop reusing a connection before it is closed;
 * its sockets' `setTimeout` is a no-op (nothing else of the server's sets one: `server.timeout` is
 * 0 and bodies have their own watch, BodyStallWatch.ts).
 */
export const closeIdleConnections = (server: Server): Server => {
  const idleMs = server.keepAliveTimeout
  if (!(idleMs > 0)) return server
  server.on("connection", (socket: Connection) => {
    socket.setTimeout = timerLeftToTheSweep
    socket.once("close", watchQuiet(progressOf(socket), idleMs, () => socket.destroy()))
  })
  return server
}
