import { Agent, createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { ServerDrain } from "../../src/Http/ServerDrain.ts"

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly retryAfter: string | undefined
  readonly body: string
}

const get = (port: number, agent: Agent, path = "/"): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (piece: string) => (body += piece))
      res.on("end", () =>
        resolve({ status: res.statusCode!, connection: res.headers["connection"], retryAfter: res.headers["retry-after"] as string | undefined, body }))
    })
    req.on("error", reject)
    req.end()
  })

const refusedConnection = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.on("connect", () => {
      socket.destroy()
      resolve("connected")
    })
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })

/** Resolves once the agent's one connection is back in its pool, ready to be reused. */
const idle = async (agent: Agent) => {
  while (Object.values(agent.freeSockets).flat().length === 0) await new Promise((r) => setTimeout(r, 5))
}

/** A server whose `/slow` answers once `release` is called; everything else at once. */
const serverWithDrain = async (graceMs: number) => {
  let release = () => {}
  let arrived = () => {}
  const slowReleased = new Promise<void>((resolve) => (release = resolve))
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve))
  const server: Server = createServer((req, res) => {
    if (req.url === "/slow") {
      arrived()
      void slowReleased.then(() => res.end("slow"))
    } else res.end("ok")
  })
  const drain = new ServerDrain(graceMs)
  drain.attach(server)
  let refused = 0
  server.on("drainRefused", () => refused++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return { server, drain, port, release, slowArrived, refused: () => refused }
}

describe("ServerDrain", () => {
  it("once closing: a request on a kept-alive connection gets 503 shutting_down and Connection: close, never a route", async () => {
    const { server, port, refused } = await serverWithDrain(10_000)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    expect((await get(port, agent)).body).toBe("ok")
    await idle(agent)
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    // The same kept-alive connection, asked again right away.
    const answer = await get(port, agent)
    expect(answer.status).toBe(503)
    expect(answer.connection).toBe("close")
    expect(answer.retryAfter).toBe("1")
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: "upstream_error", code: "shutting_down" } })
    expect(refused()).toBe(1)
    // New connections are refused; with the last connection closed, the server closes.
    expect(await refusedConnection(port)).toBe("ECONNREFUSED")
    await closed
    agent.destroy()
  })

  it("a response in flight when closing starts gets Connection: close, and the server waits for it", async () => {
    const { server, port, release, slowArrived } = await serverWithDrain(10_000)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const slow = get(port, agent, "/slow")
    await slowArrived
    let closed = false
    const closing = new Promise<void>((resolve) => server.close(() => resolve())).then(() => (closed = true))
    await new Promise((r) => setTimeout(r, 300))
    expect(closed).toBe(false)
    release()
    const answer = await slow
    expect([answer.status, answer.body, answer.connection]).toEqual([200, "slow", "close"])
    await closing
    agent.destroy()
  })

  it("closes a connection that stays quiet, and tells streams to stop when the grace runs out", async () => {
    const { server, drain, port } = await serverWithDrain(150)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    await get(port, agent)
    let stopped = 0
    const unsubscribed = drain.subscribe(() => stopped++)
    drain.subscribe(() => stopped++)
    unsubscribed()
    const startedAt = Date.now()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    // The idle kept-alive connection was closed by the drain, not left to its keep-alive timeout.
    expect(Date.now() - startedAt).toBeLessThan(5_000)
    await new Promise((r) => setTimeout(r, 300))
    expect([drain.draining, drain.stopped, stopped]).toEqual([true, true, 1])
    agent.destroy()
  })
})
