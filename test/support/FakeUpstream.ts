import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A scripted upstream provider on loopback. Each test queues replies; every request the
 * gateway makes is recorded, and the server notices when the gateway closes a connection
 * (so abort propagation can be asserted).
 */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: unknown
  readonly rawBody: string
  /** The body's bytes as received (for binary uploads, which `rawBody` would mangle). */
  readonly bytes: Buffer
}

export type Reply =
  | {
    readonly kind: "json"
    readonly status: number
    readonly body: unknown
    readonly headers?: Record<string, string>
    /** Wait this long before answering. */
    readonly delayMs?: number
    /** Answer only once this settles (a test's gate: hold every admitted request until all are decided). */
    readonly until?: Promise<void>
  }
  | { readonly kind: "raw"; readonly status: number; readonly body: string; readonly headers?: Record<string, string> }
  | {
    readonly kind: "sse"
    /** Frames written as-is (already framed, e.g. `data: {...}\n\n`). */
    readonly frames: ReadonlyArray<string>
    readonly status?: number
    /** Pause between frames. */
    readonly delayMs?: number
    /** Split the whole byte stream at these offsets into separate writes. */
    readonly splits?: ReadonlyArray<number>
    /** Destroy the socket after writing the frames instead of ending cleanly. */
    readonly breakAfter?: boolean
    /** Keep the response open after the frames (nothing more is sent). */
    readonly hangAfter?: boolean
  }
  /** Accept the request and never answer. */
  | { readonly kind: "hang" }
  /** Reset the connection once the request is read, before any byte of an answer. */
  | { readonly kind: "reset" }
  /** Send the headers and the first `bytes` of `body`, then reset the connection. */
  | { readonly kind: "partial"; readonly status: number; readonly body: string; readonly bytes: number }

export type Responder = (request: RecordedRequest) => Reply

export const sseFrame = (value: unknown): string => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`

export class FakeUpstream {
  readonly requests: Array<RecordedRequest> = []
  private readonly queue: Array<Responder> = []
  private fallback: Responder = () => ({ kind: "json", status: 500, body: { error: { message: "no reply scripted" } } })
  private closeWaiters: Array<() => void> = []
  closedEarly = 0
  private server: Server | undefined
  url = ""

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }

  /** Queue one reply (used once, in order); `always` sets the reply used when the queue is empty. */
  reply(responder: Responder | Reply): this {
    this.queue.push(typeof responder === "function" ? responder : () => responder)
    return this
  }

  always(responder: Responder | Reply): this {
    this.fallback = typeof responder === "function" ? responder : () => responder
    return this
  }

  reset(): void {
    this.requests.length = 0
    this.queue.length = 0
    this.closedEarly = 0
    this.fallback = () => ({ kind: "json", status: 500, body: { error: { message: "no reply scripted" } } })
  }

  /** Resolves when the gateway closes a connection before the reply finished. */
  nextEarlyClose(): Promise<void> {
    return new Promise((resolve) => this.closeWaiters.push(resolve))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const bytes = Buffer.concat(chunks)
    const rawBody = bytes.toString("utf8")
    let body: unknown = rawBody
    try {
      body = JSON.parse(rawBody)
    } catch {
      // not JSON; keep the text
    }
    const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, rawBody, bytes }
    this.requests.push(recorded)
    let finished = false
    res.on("close", () => {
      if (!finished) {
        this.closedEarly++
        for (const waiter of this.closeWaiters.splice(0)) waiter()
      }
    })
    const reply = (this.queue.shift() ?? this.fallback)(recorded)
    switch (reply.kind) {
      case "json":
        if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs))
        if (reply.until !== undefined) await reply.until
        if (res.destroyed) return
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
        res.end(JSON.stringify(reply.body))
        finished = true
        return
      case "raw":
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
        res.end(reply.body)
        finished = true
        return
      case "hang":
        return
      case "reset":
        req.socket.resetAndDestroy()
        return
      case "partial":
        res.writeHead(reply.status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(reply.body)) })
        res.write(Buffer.from(reply.body).subarray(0, reply.bytes), () => {
          setTimeout(() => res.socket?.resetAndDestroy(), 20)
        })
        return
      case "sse": {
        res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        const bytes = Buffer.from(reply.frames.join(""), "utf8")
        const pieces: Array<Buffer> = []
        if (reply.splits !== undefined) {
          let last = 0
          for (const at of [...reply.splits].sort((a, b) => a - b)) {
            if (at > last && at < bytes.length) {
              pieces.push(bytes.subarray(last, at))
              last = at
            }
          }
          pieces.push(bytes.subarray(last))
        } else {
          for (const frame of reply.frames) pieces.push(Buffer.from(frame, "utf8"))
        }
        for (const piece of pieces) {
          if (res.destroyed) return
          await new Promise<void>((resolve) => res.write(piece, () => resolve()))
          if (reply.delayMs !== undefined && reply.delayMs > 0) await new Promise((r) => setTimeout(r, reply.delayMs))
        }
        if (reply.breakAfter === true) {
          // Let the written frames reach the client before the connection breaks.
          await new Promise((r) => setTimeout(r, 30))
          finished = true
          res.socket?.destroy()
          return
        }
        if (reply.hangAfter === true) return
        finished = true
        res.end()
        return
      }
    }
  }
}

export const startFakeUpstream = () => new FakeUpstream().start()
