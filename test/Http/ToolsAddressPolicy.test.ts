import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type LoopbackServer, startLoopbackServer } from "../Services/Fetch/LoopbackServer.ts"
import { errorOf, toolsClient } from "../support/ToolsClient.ts"
import { useGateway } from "../support/UseGateway.ts"

/** Every spelling of a non-public target the tools must refuse under the default policy. */
const forbiddenTargets = (port: number): ReadonlyArray<readonly [string, string]> => [
  ["loopback", `http://127.0.0.1:${port}/`],
  ["loopback by name", `http://localhost:${port}/`],
  ["loopback, short form", `http://127.1:${port}/`],
  ["loopback, decimal", `http://2130706433:${port}/`],
  ["loopback, hex", `http://0x7f000001:${port}/`],
  ["loopback, dotted hex", `http://0x7f.0x0.0x0.0x1:${port}/`],
  ["loopback, octal", `http://0177.0.0.01:${port}/`],
  ["IPv6 loopback", `http://[::1]:${port}/`],
  ["IPv4-mapped IPv6", `http://[::ffff:127.0.0.1]:${port}/`],
  ["IPv4-mapped IPv6, hex", `http://[::ffff:7f00:1]:${port}/`],
  ["unspecified", `http://0.0.0.0:${port}/`],
  ["private 10/8", "http://10.1.2.3/"],
  ["private 172.16/12", "http://172.16.5.4/"],
  ["private 192.168/16, decimal", "http://3232235777/"],
  ["shared address space", "http://100.64.0.1/"],
  ["link-local, cloud metadata", "http://169.254.169.254/latest/meta-data/"],
  ["link-local, hex", "http://0xa9fea9fe/"],
  ["IPv6 link-local", "http://[fe80::1]/"],
  ["IPv6 unique-local", "http://[fd12:3456::1]/"],
  ["IPv4-mapped private", "http://[::ffff:10.0.0.1]/"]
]

describe("/v1/tools under the default address policy", () => {
  const gw = useGateway({ config: {} })
  const tools = toolsClient(gw)
  let internal: LoopbackServer
  beforeAll(async () => {
    internal = await startLoopbackServer((_req, res) => res.end("<html><body>internal admin page</body></html>"))
  })
  afterAll(async () => {
    await internal?.close()
  })

  it("refuses every private, loopback, link-local, IPv4-mapped and numeric form, for scrape and map", async () => {
    for (const [what, url] of forbiddenTargets(internal.port)) {
      for (const tool of ["scrape", "map"]) {
        const res = await tools.call(tool, { url })
        expect(res.status, `${tool} ${what}: ${url}`).toBe(400)
        const error = await errorOf(res)
        expect(error, `${tool} ${what}: ${url}`).toMatchObject({ type: "invalid_request_error", param: "url", code: "url_forbidden_address" })
      }
    }
    expect(internal.requests).toEqual([])
  })

  it("does not offer search without a back-end: not listed, and a 404 to call", async () => {
    expect((await tools.listed()).map((t) => t.id)).toEqual(["scrape", "map"])
    const res = await gw.postJson("/v1/tools/search", { query: "otters" })
    expect(res.status).toBe(404)
    expect(await errorOf(res)).toMatchObject({ type: "not_found_error", code: "tool_not_found" })
  })
})
