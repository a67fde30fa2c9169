import * as Net from "node:net"

/**
 * Sends `head` and the start of a body over a plain socket, then nothing: what the server
 * answered, and how long until it closed the connection.
 */
export const stalledRequest = (url: string, head: string, partialBody: string) =>
  new Promise<{ readonly text: string; readonly closedAfterMs: number }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const started = Date.now()
    const socket = Net.connect(Number(port), hostname, () => socket.write(head + partialBody))
    let text = ""
    socket.on("data", (chunk) => (text += chunk.toString()))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve({ text, closedAfterMs: Date.now() - started }))
    setTimeout(() => reject(new Error(`the server held the socket: ${text}`)), 10_000).unref()
  })

/** Sends raw bytes and returns everything the server wrote until it closed. */
export const rawExchange = (url: string, request: string) =>
  new Promise<string>((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = Net.connect(Number(port), hostname, () => socket.write(request))
    let text = ""
    socket.on("data", (d) => (text += d.toString()))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve(text))
  })

/** A request head with CRLF line ends and the blank line that ends it. */
export const requestHead = (lines: ReadonlyArray<string>) => [...lines, "", ""].join("\r\n")

export interface RawAnswer {
  readonly status: number
  readonly body: string
  /** How many body bytes had been written when the first byte of the answer came. */
  readonly sentBeforeAnswer: number
}

/** The body of a response as it came on the wire: as is, or its chunks joined. */
const unchunk = (head: string, raw: string): string => {
  if (!/^transfer-encoding:\s*chunked/im.test(head)) return raw
  let body = ""
  let at = 0
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at)
    const size = lineEnd === -1 ? 0 : Number.parseInt(raw.slice(at, lineEnd), 16)
    if (!(size > 0)) return body
    body += raw.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
}

/**
 * POSTs `body` in 64 KiB chunks over a plain socket, with its Content-Length (or `declared`, a
 * larger one whose rest never comes) or chunked, and reads whatever the server answers until it
 * closes. A server may answer before the body is all sent (a refusal from the headers or
 * mid-body) and close: sending then stops, and the answer is still read. An HTTP client library
 * can lose that answer to the write error that follows; a socket cannot. A server that closes with
 * bytes still unread resets the connection, which can drop its answer on the way: a test that
 * needs the answer to a mid-body refusal sends a little past the limit and stops (`stopAfter`).
 */
export const rawPost = (
  url: string,
  path: string,
  body: Uint8Array,
  options: {
    readonly headers?: Record<string, string>
    readonly chunked?: boolean
    readonly declared?: number
    /** Sends only this many bytes of a chunked body, never its end: a server refusing by its running count needs no more. */
    readonly stopAfter?: number
  } = {}
) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const headers = { host: `${hostname}:${port}`, "content-type": "application/json", connection: "close", ...options.headers }
    const framing = options.chunked === true ? "transfer-encoding: chunked" : `content-length: ${options.declared ?? body.length}`
    const head = requestHead([`POST ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), framing])
    const socket = Net.connect(Number(port), hostname)
    let sent = 0
    let sentBeforeAnswer: number | undefined
    let text = ""
    socket.on("data", (chunk: Buffer) => {
      sentBeforeAnswer ??= sent
      text += chunk.toString("latin1")
    })
    // A reset after the answer (the server closed with the body unread) is not a failure.
    socket.on("error", () => undefined)
    socket.on("close", () => {
      const split = text.indexOf("\r\n\r\n")
      if (split === -1) return reject(new Error(`no answer from ${path}: ${JSON.stringify(text)}`))
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)
      const raw = Buffer.from(text.slice(split + 4), "latin1").toString("utf8")
      resolve({ status, body: unchunk(text.slice(0, split), raw), sentBeforeAnswer: sentBeforeAnswer ?? sent })
    })
    const frame = (chunk: Uint8Array) => (options.chunked === true ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk)
    const write = () => {
      const last = Math.min(body.length, options.stopAfter ?? body.length)
      while (sentBeforeAnswer === undefined && sent < last && !socket.destroyed) {
        const chunk = body.subarray(sent, Math.min(last, sent + 64 * 1024))
        sent += chunk.length
        if (!socket.write(frame(chunk))) return void socket.once("drain", write)
      }
      if (sentBeforeAnswer === undefined && !socket.destroyed && options.chunked === true && options.stopAfter === undefined) socket.write("0\r\n\r\n")
    }
    socket.once("connect", () => {
      socket.write(head)
      write()
    })
  })

export type SentThenRead =
  | { readonly _tag: "Answered"; readonly status: number; readonly body: string; readonly head: string }
  | { readonly _tag: "Lost"; readonly error: string }

/**
 * POSTs `body` (with its Content-Length) the way many HTTP clients do, Python's `http.client`
 * among them: every byte written before anything is read. Reading starts only once the last
 * write has gone out; a write error before that (the server closed and reset the connection)
 * loses the answer, as it does for such a client.
 */
export const sendThenRead = (url: string, head: string, body: Uint8Array) =>
  new Promise<SentThenRead>((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = Net.connect(Number(port), hostname)
    socket.pause()
    let text = ""
    const lost = (error: string) => {
      socket.destroy()
      resolve({ _tag: "Lost", error })
    }
    socket.on("error", (error: NodeJS.ErrnoException) => lost(error.code ?? error.message))
    socket.on("close", () => lost(`closed after ${JSON.stringify(text.slice(0, 200))}`))
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1")
      const split = text.indexOf("\r\n\r\n")
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split))?.[1] ?? Number.NaN)
      if (split === -1 || !(text.length >= split + 4 + length)) return
      const answer = { head: text.slice(0, split), body: text.slice(split + 4, split + 4 + length), status: Number(text.slice(9, 12)) }
      socket.removeAllListeners("close")
      socket.destroy()
      resolve({ _tag: "Answered", ...answer })
    })
    socket.once("connect", () => {
      socket.write(head)
      let sent = 0
      const write = () => {
        while (sent < body.length) {
          const chunk = body.subarray(sent, sent + 64 * 1024)
          sent += chunk.length
          const last = sent >= body.length
          const flushed = socket.write(chunk, last ? () => socket.resume() : undefined)
          if (!flushed && !last) return void socket.once("drain", write)
        }
      }
      write()
    })
  })
