import { EventEmitter } from "node:events"
import { Agent, createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { closeIdleConnections } from "../../src/Http/IdleConnections.ts"

// The sweep reads a connection's byte counts and its response in progress, and keeps time with
// `setInterval` and the clock it is given: connections of those parts and fake timers make every
// case exact whatever the machine's load. The last block runs a real server on loopback and
// checks only what holds at any speed (a close never comes early; it comes).
class FakeConnection extends EventEmitter {
  bytesRead = 0
  bytesWritten = 0
  _httpMessage: { writableFinished: boolean } | null = null
  readonly destroy = vi.fn(() => {
    this.emit("close")
  })
}

const fakeServer = (idleMs: number) => {
  const server = new EventEmitter()
  closeIdleConnections(server as unknown as Server, idleMs, () => Date.now())
  const connect = () => {
    const connection = new FakeConnection()
    server.emit("connection", connection)
    return connection
  }
  return { server, connect }
}

describe("idle connections (fake clock)", () => {
  beforeAll(() => {
    vi.useFakeTimers()
  })
  afterAll(() => {
    vi.useRealTimers()
  })

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
  // Server-side times on the clock the sweep is given: when each answer was handed to the socket,
  // and when each connection closed.
  const now = () => performance.now()
  let endedAt = 0
  const closedAt: Array<Promise<number>> = []

  beforeAll(async () => {
    server = closeIdleConnections(
      createServer({ keepAliveTimeout: 0 }, (req, res) => {
        const answer = (body: string) => {
          endedAt = now()
          res.end(body)
        }
        if (req.url === "/slow") release = () => answer("slow")
        else answer("ok")
      }),
      idleMs,
      now
    )
    server.on("connection", (socket) => closedAt.push(new Promise((resolve) => socket.once("close", () => resolve(now())))))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const get = (path: string, agent: Agent) =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("end", () => resolve(body))
      })
      req.on("error", reject)
      req.end()
    })

  it("closes a kept-alive connection once it has been idle, never before the idle time", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    expect(await get("/", agent)).toBe("ok")
    const closed = closedAt.at(-1)!
    expect((await closed) - endedAt).toBeGreaterThanOrEqual(idleMs)
    agent.destroy()
  })

  it("keeps a connection whose response takes many idle times, then closes it once idle", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const answered = get("/slow", agent)
    let closed = false
    // Wait for the connection, then eight idle times with nothing on the wire.
    await vi.waitFor(() => expect(closedAt.length).toBe(2))
    void closedAt[1]!.then(() => (closed = true))
    await new Promise((resolve) => setTimeout(resolve, idleMs * 8))
    expect(closed).toBe(false)
    release()
    expect(await answered).toBe("slow")
    expect((await closedAt[1]!) - endedAt).toBeGreaterThanOrEqual(idleMs)
    agent.destroy()
  })
})
