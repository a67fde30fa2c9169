import type { Server, ServerResponse } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import * as Context from "effect/Context"
import * as Ids from "../Domain/Ids.ts"
import { neverStops, shuttingDown, type StreamStop } from "../Streams/StreamStop.ts"
import { errorBody } from "./ErrorResponse.ts"

/** How often connections are looked at while draining; one quiet look after another closes one. */
const sweepMs = 100

type Connection = Socket & { _httpMessage?: ServerResponse | null }

/**
 * The shutdown of the HTTP server, from the moment it is asked to close:
 *
 * 1. **Draining** (`close()` called). The listening socket closes, so new connections are refused.
 *    The responses of requests in flight that have not started get `Connection: close`; a request
 *    that arrives on a kept-alive connection is answered at once with a 503 (`shutting_down`,
 *    `Retry-After`) and `Connection: close`, and never reaches a route. A connection is closed once
 *    it was seen twice in a row, `sweepMs` apart, with no response in progress and no byte received
 *    in between: a client that sends its next request right after a response gets the 503 rather
 *    than a reset connection. Node's own `close()` would close every idle connection at once, even
 *    one whose next request is already on its way.
 * 2. **Stopped** (`graceMs` after 1). Streams still open are told (`StreamStop`), and each ends
 *    itself with the frame saying so; requests still in flight are left to the server's own grace,
 *    which is set a little longer than this one (`HttpServerLayer.ts`).
 * 3. **Closed**: the last connection closed; the server's `close` callback runs.
 */
export class ServerDrain implements StreamStop {
  draining = false
  stopped = false
  private readonly graceMs: number
  private readonly listeners = new Set<() => void>()
  private readonly connections = new Set<Connection>()
  /** Bytes read by each connection at the last look, when no response was in progress then. */
  private readonly quietAt = new Map<Connection, number>()
  private sweeper: NodeJS.Timeout | undefined
  private stopper: NodeJS.Timeout | undefined

  constructor(graceMs: number) {
    this.graceMs = graceMs
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Takes over `server.close()` and keeps track of the server's connections (one listener per connection). */
  attach(server: Server): Server {
    server.on("connection", (socket: Connection) => {
      this.connections.add(socket)
      socket.once("close", () => {
        this.connections.delete(socket)
        this.quietAt.delete(socket)
      })
    })
    server.close = ((callback?: (error?: Error) => void) => {
      this.begin(server)
      // `net.Server.close`, not `http.Server.close`: that one closes every idle connection at once.
      NetServer.prototype.close.call(server, callback)
      return server
    }) as Server["close"]
    server.once("close", () => this.end())
    return server
  }

  private begin(server: Server): void {
    if (this.draining) return
    this.draining = true
    for (const socket of this.connections) {
      const response = socket._httpMessage
      if (response != null && !response.headersSent) response.setHeader("connection", "close")
    }
    // From now on no request reaches the application: each is refused here, whoever listens.
    const emit = server.emit
    server.emit = function(this: Server, event: string | symbol, ...rest: Array<unknown>) {
      if (event === "request" || event === "checkContinue") {
        refuse(rest[1] as ServerResponse)
        // The access log listens for these (AccessLogHook.ts).
        return emit.call(this, "drainRefused", ...rest)
      }
      return emit.call(this, event, ...rest)
    } as Server["emit"]
    this.sweeper = setInterval(() => this.sweep(), sweepMs)
    this.sweeper.unref()
    this.stopper = setTimeout(() => this.stop(), this.graceMs)
    this.stopper.unref()
  }

  private sweep(): void {
    for (const socket of this.connections) {
      const response = socket._httpMessage
      if (response != null && !response.writableFinished) {
        this.quietAt.delete(socket)
        continue
      }
      const before = this.quietAt.get(socket)
      if (before === socket.bytesRead) socket.destroy()
      else this.quietAt.set(socket, socket.bytesRead)
    }
  }

  private stop(): void {
    this.stopped = true
    const listeners = [...this.listeners]
    this.listeners.clear()
    for (const listener of listeners) listener()
  }

  private end(): void {
    clearInterval(this.sweeper)
    clearTimeout(this.stopper)
  }
}

/** The 503 of a request that arrives while the server drains, closing its connection. */
const refuse = (response: ServerResponse): void => {
  if (response.headersSent) return
  const error = shuttingDown()
  const requestId = Ids.requestId()
  const body = JSON.stringify(errorBody(error, { requestId }).body)
  const seconds = Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
    "retry-after": String(seconds),
    "x-request-id": requestId
  })
  response.end(body)
}

/** The drain of the server being served, for streamed bodies; none outside a Node server (tests). */
export const CurrentDrain = Context.Reference<StreamStop>("gateway/CurrentDrain", { defaultValue: () => neverStops })
