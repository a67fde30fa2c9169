import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { UrlFetcher, type Resolver } from "../../../src/Services/Fetch/UrlFetcher.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { WebTools } from "../../../src/Services/Tools/WebTools.ts"
import { type LoopbackServer, refusal, startLoopbackServer } from "../Fetch/LoopbackServer.ts"

/**
 * The tools under the default address policy, with one loopback server standing in for a
 * public site (its address:port declared public through the fetcher's test seam, and names
 * resolved by a fake DNS) and another for an internal service nothing may reach.
 */
const config = Schema.decodeUnknownSync(GatewayConfig)({})

let site: LoopbackServer
let internal: LoopbackServer
let siteUrl = (path: string) => path

/** `*.site.test` names: the site itself, a subdomain on the same address, and subdomains on internal ones. */
const resolver: Resolver = async (name) => {
  if (name === "site.test" || name === "www.site.test" || name === "blog.site.test") return [{ address: "127.0.0.1", family: 4 }]
  if (name === "intranet.site.test") return [{ address: "10.0.0.7", family: 4 }]
  if (name === "metadata.site.test") return [{ address: "169.254.169.254", family: 4 }]
  if (name === "rebind.site.test") return [{ address: "127.0.0.1", family: 4 }, { address: "192.168.0.5", family: 4 }]
  throw new Error(`no such host ${name}`)
}

const toolsLayer = () =>
  Layer.effect(
    WebTools,
    Effect.gen(function* () {
      const fetcher = UrlFetcher.make(config.fetch, { resolve: resolver, publicEndpoints: [{ address: "127.0.0.1", port: site.port }] })
      return WebTools.make({ settings: { tools: config.tools, fetch: config.fetch }, fetcher, extractor: yield* Extractor, search: undefined })
    })
  ).pipe(Layer.provide(Extractor.layerWithoutCache), Layer.provide(GatewayConfigFile.fromConfig(config)))

const call = (tool: string, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const tools = yield* WebTools
    const decoded = yield* tools.find(tool)!.decode(body)
    return yield* tools.run(decoded, "project-1")
  }).pipe(Effect.provide(toolsLayer()))

beforeAll(async () => {
  internal = await startLoopbackServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/xml" })
    res.end(`<urlset><url><loc>http://site.test/leaked</loc></url></urlset>`)
  })
  site = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site.test")
    if (url.pathname === "/robots.txt") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end(`User-agent: *\nAllow: /\nSitemap: ${siteUrl("/sitemap.xml")}\nSitemap: ${siteUrl("/to-internal")}\n`)
    }
    if (url.pathname === "/to-internal") {
      res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/sitemap.xml` })
      return res.end()
    }
    if (url.pathname === "/to") {
      res.writeHead(302, { location: url.searchParams.get("u") ?? "/" })
      return res.end()
    }
    if (url.pathname === "/sitemap.xml") {
      res.writeHead(200, { "content-type": "application/xml" })
      const port = site.port
      return res.end(`<urlset>
        <url><loc>http://site.test:${port}/a</loc></url>
        <url><loc>http://www.site.test:${port}/b</loc></url>
        <url><loc>http://blog.site.test:${port}/c</loc></url>
        <url><loc>http://intranet.site.test:${port}/secret</loc></url>
        <url><loc>http://metadata.site.test:${port}/latest</loc></url>
        <url><loc>http://rebind.site.test:${port}/x</loc></url>
      </urlset>`)
    }
    res.writeHead(200, { "content-type": "text/html" })
    res.end("<html><head><title>Public site</title></head><body><p>Hello from the public site.</p></body></html>")
  })
  siteUrl = (path) => `http://site.test:${site.port}${path}`
})
afterAll(async () => {
  await site?.close()
  await internal?.close()
})

describe("web tools under the default address policy", () => {
  it.effect("scrape reaches the public site", () =>
    Effect.gen(function* () {
      const result = (yield* call("scrape", { url: siteUrl("/page") })) as Record<string, unknown>
      expect(result).toMatchObject({ status_code: 200, title: "Public site" })
    }))

  it.effect("scrape refuses a redirect to a loopback, numeric or IPv4-mapped address of an internal service", () =>
    Effect.gen(function* () {
      for (const target of [
        `http://127.0.0.1:${internal.port}/`,
        `http://2130706433:${internal.port}/`,
        `http://0x7f000001:${internal.port}/`,
        `http://[::ffff:127.0.0.1]:${internal.port}/`,
        "http://169.254.169.254/latest/meta-data/",
        "http://intranet.site.test/"
      ]) {
        const error = yield* refusal(call("scrape", { url: siteUrl(`/to?u=${encodeURIComponent(target)}`) }))
        expect(error.param, target).toBe("url")
        expect(error.code, target).toBe("url_forbidden_address")
        expect(error.message, target).toContain("through 1 redirect")
      }
      expect(internal.requests).toEqual([])
    }))

  it.effect("map drops sitemap URLs whose host resolves to a non-public address, and never follows a sitemap into one", () =>
    Effect.gen(function* () {
      const result = (yield* call("map", { url: siteUrl("/"), include_subdomains: true })) as { urls: Array<string> }
      const port = site.port
      expect(result.urls).toEqual(
        expect.arrayContaining([`http://site.test:${port}/a`, `http://www.site.test:${port}/b`, `http://blog.site.test:${port}/c`])
      )
      for (const host of ["intranet", "metadata", "rebind"]) expect(result.urls.some((u) => u.includes(`//${host}.`))).toBe(false)
      expect(result.urls.some((u) => u.includes("leaked"))).toBe(false)
      expect(internal.requests).toEqual([])
    }))

  it.effect("map without include_subdomains keeps the host and its www. twin only", () =>
    Effect.gen(function* () {
      const result = (yield* call("map", { url: siteUrl("/") })) as { urls: Array<string> }
      const port = site.port
      expect([...result.urls].sort()).toEqual([`http://site.test:${port}/`, `http://site.test:${port}/a`, `http://www.site.test:${port}/b`])
    }))
})
