import { request } from "node:http"
import { createServer, type Server, Socket } from "node:net"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { sseFrame } from "../support/FakeUpstream.ts"
import { openAiChunk } from "../support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../support/TestGateway.ts"

/**
 * An upstream that answers every request with two HTTP chunks in one socket write, so the
 * gateway reads both in one go, then holds the stream open: the first carries the role and the
 * first content, the second more content.
 */
const startTwoChunkUpstream = async () => {
  const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
  const first = sseFrame(openAiChunk({ role: "assistant", content: "", refusal: null })) + sseFrame(openAiChunk({ content: "first-piece" }))
  const second = sseFrame(openAiChunk({ content: "second-piece" }))
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    let seen = ""
    socket.on("data", (data: Buffer) => {
      seen += data.toString("latin1")
      const head = seen.indexOf("\r\n\r\n")
      if (head === -1) return
      const length = Number(/content-length: *(\d+)/i.exec(seen.slice(0, head))?.[1] ?? 0)
      if (seen.length < head + 4 + length) return
      seen = ""
      socket.write(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" + chunk(first) + chunk(second)
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** What the gateway writes to the connection whose client end is `localPort`, one entry per socket write. */
const recordWrites = (localPort: () => number | undefined) => {
  const writes: Array<string> = []
  const proto = Socket.prototype as unknown as Record<"_write" | "_writev", (...args: Array<any>) => unknown>
  const original = { _write: proto._write, _writev: proto._writev }
  proto._write = function(this: Socket, chunk: Buffer | string, ...rest: Array<unknown>) {
    if (this.remotePort !== undefined && this.remotePort === localPort()) writes.push(String(chunk))
    return original._write.call(this, chunk, ...rest)
  }
  proto._writev = function(this: Socket, chunks: Array<{ chunk: Buffer | string }>, ...rest: Array<unknown>) {
    if (this.remotePort !== undefined && this.remotePort === localPort()) writes.push(chunks.map((c) => String(c.chunk)).join(""))
    return original._writev.call(this, chunks, ...rest)
  }
  return { writes, restore: () => Object.assign(proto, original) }
}

describe("a stream's first frame", () => {
  let storage: TestStorage
  let upstream: Awaited<ReturnType<typeof startTwoChunkUpstream>>
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startTwoChunkUpstream()
    gw = await startGateway({
      storage,
      config: {
        providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream" }],
        models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
      }
    })
    key = (await gw.createKey()).secret
  })
  afterAll(async () => {
    await gw?.stop()
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("leaves in a write of its own, before the gateway reads on", async () => {
    let port: number | undefined
    const spy = recordWrites(() => port)
    try {
      const body = JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
      const received = await new Promise<string>((resolve, reject) => {
        const req = request(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
        })
        req.on("socket", (socket) => socket.on("connect", () => (port = socket.localPort)))
        req.on("error", reject)
        req.on("response", (res) => {
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (piece: string) => {
            text += piece
            if (!text.includes("second-piece")) return
            req.destroy()
            resolve(text)
          })
        })
        req.end(body)
      })
      expect(received).toContain("first-piece")
      const first = spy.writes.find((w) => w.includes("data: "))
      expect(first).toBeDefined()
      expect(first).toContain("HTTP/1.1 200")
      expect(first).toContain("first-piece")
      expect(first).not.toContain("second-piece")
    } finally {
      spy.restore()
    }
  })
})
