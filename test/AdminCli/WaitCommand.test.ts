import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { defaultGatewayUrl } from "../../src/AdminCli/WaitCommand.ts"
import { runAdminCli } from "../support/AdminCliRun.ts"

describe("admin wait", () => {
  let server: Server
  let url = ""
  let readyAfter = 0

  beforeAll(async () => {
    // A gateway stand-in that is alive but not ready for its first few probes.
    server = createServer((request, response) => {
      const ready = request.url === "/readyz" && --readyAfter < 0
      response.writeHead(ready ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify({ status: ready ? "ready" : "unavailable" }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("the default URL follows PORT like the gateway", () => {
    expect(defaultGatewayUrl({})).toBe("http://127.0.0.1:8080")
    expect(defaultGatewayUrl({ PORT: "9123" })).toBe("http://127.0.0.1:9123")
  })

  it("returns once /readyz answers 200", async () => {
    readyAfter = 3
    const run = await runAdminCli(["wait", "--url", url, "--timeout", "30s"], {})
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`gateway ready at ${url}`)
    expect(readyAfter).toBeLessThan(0)
  }, 60_000)

  it("fails with one line when nothing becomes ready in time", async () => {
    readyAfter = 1_000_000
    const run = await runAdminCli(["wait", "--url", url, "--timeout", "1s"], {})
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^error: the gateway at .* was not ready within 1 s/)
  }, 60_000)
})
