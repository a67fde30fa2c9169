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
