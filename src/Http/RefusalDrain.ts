import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { watchBodyStall } from "./BodyStallWatch.ts"

/**
 * The most of an unread request body the server reads and drops after a refusal (see
 * `lingerAfterRefusal`). Past it, or for a body that declares more, the connection closes as
 * soon as the refusal is sent.
 */
export const refusalDrainBytes = 64 * 1024 * 1024

/** How long a connection may linger after a refusal, whatever the client keeps sending (nginx's `lingering_time`). */
export const refusalDrainMs = 30_000

/** How long the client may send nothing while the connection lingers (nginx's `lingering_timeout`). */
export const refusalDrainIdleMs = 5_000

/**
 * Keeps reading, and dropping, a refused request's body after its refusal went out, so that the
 * refusal (a 401 from the headers, a 413, a 400 mid-body) reaches every client. The refusal is
 * sent at once: a client that reads while it sends (curl, Node's fetch) stops sending. But many
 * clients (Python's `http.client` and `requests`, for one) send the whole body before they read
 * anything, and the server's platform, once the refusal is flushed, stops reading, ends the
 * connection and destroys it half a second later: with body bytes still arriving the kernel
 * then resets the connection, the reset discards the answer the client had not read yet, and
 * the client reports a broken pipe instead of the 413 that says what to do. This is the
 * lingering close of web servers (nginx's `lingering_close`): the refusal says `Connection: close`, and the connection is read
 * until the body ends, the client sends nothing for `refusalDrainIdleMs` (or `stallMs`, if
 * shorter), `refusalDrainBytes` have come, or `refusalDrainMs` passed; then it is destroyed,
 * with nothing left unread to reset it when the body ended. Never kept open after: an idle
 * connection left behind would have no timer at all (the drain's replaced Node's keep-alive one).
 *
 * The platform's destroy is deferred by shadowing `destroy` on this one socket while it
 * lingers (a destroy with an error still goes through at once): its half-second grace is a
 * constant of its own, not an option.
 */
export const lingerAfterRefusal = (message: IncomingMessage, response: ServerResponse, stallMs: number): void => {
  // A client waiting for `100 Continue` sends no body: the platform closes, as it should.
  if (message.headers.expect !== undefined) return
  const declared = Number(message.headers["content-length"] ?? 0)
  if (!(declared <= refusalDrainBytes)) return
  // Set before the platform writes the head, so that it closes (and the client knows it will).
  if (!response.headersSent) response.setHeader("connection", "close")
  // Appended: runs after the platform's own `finish` listeners have decided to close or drain.
  response.once("finish", () => {
    const socket: Socket | null = message.socket
    if (message.complete || message.destroyed || socket === null || socket.destroyed) return
    const destroy = socket.destroy
    let read = 0
    let lingering = true
    const shadow = function(this: Socket, error?: Error) {
      return lingering && error === undefined ? this : destroy.call(this, error)
    }
    Object.defineProperty(socket, "destroy", { value: shadow, configurable: true, writable: true })
    const stop = () => {
      if (!lingering) return
      lingering = false
      unwatch()
      clearTimeout(deadline)
      message.off("data", onData)
      message.off("end", stop)
      message.off("close", stop)
      Reflect.deleteProperty(socket, "destroy")
      socket.destroy()
    }
    const onData = (chunk: Buffer) => {
      read += chunk.length
      if (read > refusalDrainBytes) return stop()
      // The platform pauses the body once it decides to close; the drop goes on regardless.
      if (message.isPaused()) message.resume()
    }
    const unwatch = watchBodyStall(message, Math.min(stallMs, refusalDrainIdleMs), stop)
    const deadline = setTimeout(stop, refusalDrainMs)
    message.on("data", onData)
    message.once("end", stop)
    message.once("close", stop)
    message.resume()
  })
}
