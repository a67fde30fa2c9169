import { EventEmitter } from "node:events"
import { createServer, type Server } from "node:http"
import { type AddressInfo, createConnection, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { useFakeTimersInBlock } from "../support/FakeTimers.ts"
import { closeIdleConnections } from "../../src/Http/IdleConnections.ts"

// The sweep reads a connection's byte counts and its response in progress, and keeps time with
// `setInterval` and `Date.now`: connections of those parts and fake timers make every
// case exact whatever the machine's load. The last block runs a real server on loopback and
// checks only what holds at any speed (a close never comes early; it comes).
class FakeConnection extends EventEmitter {
  bytesRead = 0
  bytesWritten = 0
  _httpMessage: { writableFinished: boolean } | null = null
  setTimeout = (_ms: number) => this
  readonly destroy = vi.fn(() => {
    this.emit("close")
  })
}

const fakeServer = (idleMs: number) => {
  const server = Object.assign(new EventEmitter(), { keepAliveTimeout: idleMs })
  closeIdleConnections(server as unknown as Server)
  const connect = () => {
    const connection = new FakeConnection()
    server.emit("connection", connection)
    return connection
  }
  return { server, connect }
}

describe("idle connections (fake clock)", () => {
  useFakeTimersInBlock()

  it("a quiet connection is closed never before the idle time and within a quarter after it", () => {
    const { connect } = fakeServer(1000)
    const connection = connect()
    vi.advanceTimersByTime(999)
    expect(connection.destroy).not.toHaveBeenCalled()
    vi.advanceTimersByTime(250)
    expect(connection.destroy).toHaveBeenCalledTimes(1)
  })

  it("bytes read or written keep a connection open; the idle time counts from the last of them", () => {
    const { connect } = fakeServer(1000)
    const connection = connect()
    for (let i = 0; i < 20; i++) {
      if (i % 2 === 0) connection.bytesRead += 10
      else connection.bytesWritten += 10
      vi.advanceTimersByTime(500)
    }
    expect(connection.destroy).not.toHaveBeenCalled()
    vi.advanceTimersByTime(499)
    expect(connection.destroy).not.toHaveBeenCalled()
    vi.advanceTimersByTime(251)
    expect(connection.destroy).toHaveBeenCalledTimes(1)
  })

  it("a response in progress keeps a silent connection open however long it takes; idle counts from its end", () => {
    const { connect } = fakeServer(1000)
    const connection = connect()
    const response = { writableFinished: false }
    connection._httpMessage = response
    vi.advanceTimersByTime(60_000)
    expect(connection.destroy).not.toHaveBeenCalled()
    response.writableFinished = true
    vi.advanceTimersByTime(999)
    expect(connection.destroy).not.toHaveBeenCalled()
    vi.advanceTimersByTime(500)
    expect(connection.destroy).toHaveBeenCalledTimes(1)
  })

  it("a connection closed by its client is forgotten, and the sweep stops with the last one", () => {
    const { connect } = fakeServer(1000)
    const before = vi.getTimerCount()
    const connection = connect()
    expect(vi.getTimerCount()).toBe(before + 1)
    connection.emit("close")
    expect(vi.getTimerCount()).toBe(before)
    vi.advanceTimersByTime(10_000)
    expect(connection.destroy).not.toHaveBeenCalled()
  })

  it("leaves a server without a keep-alive time alone", () => {
    const server = Object.assign(new EventEmitter(), { keepAliveTimeout: 0 })
    closeIdleConnections(server as unknown as Server)
    expect(server.listenerCount("connection")).toBe(0)
  })

  it("each connection's idle time is its own", () => {
    const { connect } = fakeServer(1000)
    const first = connect()
    vi.advanceTimersByTime(600)
    const second = connect()
    vi.advanceTimersByTime(650)
    expect(first.destroy).toHaveBeenCalledTimes(1)
    expect(second.destroy).not.toHaveBeenCalled()
    vi.advanceTimersByTime(600)
    expect(second.destroy).toHaveBeenCalledTimes(1)
  })
})

describe("idle connections (a real server)", () => {
  const idleMs = 100
  let server: Server
  let port: number
  let release: () => void = () => undefined
  // Server-side times on the sweep's clock: when each answer was handed to the socket, and when
  // each connection closed.
  const now = () => Date.now()
  let endedAt = 0
  const closedAt: Array<Promise<number>> = []
  const sockets: Array<Socket> = []

  beforeAll(async () => {
    server = closeIdleConnections(
      createServer({ keepAliveTimeout: idleMs }, (req, res) => {
        const answer = (body: string) => {
          endedAt = now()
          res.end(body)
        }
        if (req.url === "/slow") release = () => answer("slow")
        else answer("ok")
      })
    )
    server.on("connection", (socket) => {
      sockets.push(socket)
      closedAt.push(new Promise((resolve) => socket.once("close", () => resolve(now()))))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  // A raw connection: a client library would act on the `Keep-Alive` hint and close it first.
  const connect = () =>
    new Promise<{ ask: (path: string) => Promise<string> }>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => resolve({ ask }))
      socket.setEncoding("latin1")
      let received = ""
      let answer: ((head: string) => void) | undefined
      socket.on("data", (chunk: string) => {
        received += chunk
        const end = received.indexOf("\r\n\r\n")
        const length = /content-length: (\d+)/i.exec(received)
        if (end !== -1 && length !== null && received.length >= end + 4 + Number(length[1])) {
          const whole = received
          received = ""
          answer?.(whole)
        }
      })
      const ask = (path: string) =>
        new Promise<string>((done) => {
          answer = done
          socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`)
        })
    })

  it("closes a kept-alive connection once it has been idle, never before the idle time", async () => {
    const answer = await (await connect()).ask("/")
    expect(answer).toMatch(/\r\n\r\nok$/)
    // Clients still learn the keep-alive time; the socket got no timer of Node's for it.
    expect(answer).toMatch(/\r\nKeep-Alive: timeout=\d+\r\n/i)
    expect(sockets.at(-1)!.timeout).toBeUndefined()
    expect((await closedAt.at(-1)!) - endedAt).toBeGreaterThanOrEqual(idleMs)
  })

  it("keeps a connection whose response takes many idle times, then closes it once idle", async () => {
    const answered = (await connect()).ask("/slow")
    let closed = false
    // Wait for the connection, then eight idle times with nothing on the wire.
    await vi.waitFor(() => expect(closedAt.length).toBe(2), { timeout: 10_000 })
    void closedAt[1]!.then(() => (closed = true))
    await new Promise((resolve) => setTimeout(resolve, idleMs * 8))
    expect(closed).toBe(false)
    release()
    expect(await answered).toMatch(/\r\n\r\nslow$/)
    expect((await closedAt[1]!) - endedAt).toBeGreaterThanOrEqual(idleMs)
  })
})
