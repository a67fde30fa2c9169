import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * The floor: the least a proxy in Node can do. `node:http` server, `node:http` client with a
 * keep-alive pool, headers and bodies piped through untouched, and the upstream request
 * destroyed when the client goes away. No auth, no parsing, no logging.
 * Run as a script: `node bench/FloorProxy.ts <upstreamPort> [port]`, prints `{"port":N}`.
 */
export const startFloorProxy = (upstreamPort: number, port = 0) => {
  const agent = new Agent({ keepAlive: true, keepAliveMsecs: 30_000 })
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const upstream = request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" })
      res.end()
    })
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  })
  server.maxConnections = 100_000
  return new Promise<{ port: number }>((resolve) =>
    server.listen(port, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port }))
  )
}

if (import.meta.main) {
  const upstreamPort = Number(process.argv[2])
  if (!Number.isInteger(upstreamPort) || upstreamPort <= 0) throw new Error("usage: FloorProxy.ts <upstreamPort> [port]")
  const { port } = await startFloorProxy(upstreamPort, Number(process.argv[3] ?? 0))
  process.stdout.write(`${JSON.stringify({ port })}\n`)
}
