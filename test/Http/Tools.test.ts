import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { closedPort } from "../Services/Fetch/LoopbackServer.ts"
import {
  article,
  articlePath,
  type FixtureSite,
  offSiteUrls,
  pdfFixture,
  pdfPath,
  sitemapPages,
  startFixtureSite
} from "../support/FixtureSite.ts"
import { searxngAnswer } from "../support/SearchFixtures.ts"
import { errorOf, toolsClient } from "../support/ToolsClient.ts"
import { useGateway } from "../support/UseGateway.ts"

const collapse = (text: string) => text.replace(/\s+/g, " ").trim()

describe("/v1/tools with a fixture site on loopback (private networks allowed for this test only)", () => {
  const gw = useGateway({
    upstreams: ["searxng"],
    config: ({ searxng }) => ({
      fetch: { allow_private_networks: true },
      tools: {
        pricing: { scrape: 0.002, search: 0.005, map: 0.01 },
        search: { backend: "searxng", base_url: searxng.url }
      }
    })
  })
  const tools = toolsClient(gw)
  let site: FixtureSite
  beforeAll(async () => {
    site = await startFixtureSite()
  })
  afterAll(async () => {
    await site?.close()
  })

  const scrape = async (body: Record<string, unknown>) => {
    const res = await tools.call("scrape", body)
    expect(res.status).toBe(200)
    return (await res.json()) as Record<string, any>
  }

  it("lists scrape, search and map, each with a JSON Schema of its parameters", async () => {
    const listed = await tools.listed()
    expect(listed.map((t) => t.id)).toEqual(["scrape", "search", "map"])
    for (const tool of listed) {
      expect(tool.object).toBe("tool")
      expect(tool.description.length).toBeGreaterThan(20)
      expect(tool.parameters["type"]).toBe("object")
      expect(tool.parameters["additionalProperties"]).toBe(false)
    }
    const scrapeParams = listed[0]!.parameters as { required: Array<string>; properties: Record<string, any> }
    expect(scrapeParams.required).toEqual(["url"])
    expect(scrapeParams.properties["format"]).toMatchObject({ enum: ["markdown", "text", "html"], default: "markdown" })
    expect(scrapeParams.properties["timeout_ms"]).toMatchObject({ type: "integer", maximum: 20_000 })
    const one = await fetch(`${gw.url}/v1/tools/map`, { headers: gw.auth() })
    expect(await one.json()).toEqual(listed[2])
  })

  it("scrapes an article to Markdown: headings, lists, links and code kept; navigation, ads and banners dropped", async () => {
    const page = await scrape({ url: site.url(articlePath) })
    expect(page).toMatchObject({
      url: site.url(articlePath),
      final_url: site.url(articlePath),
      status_code: 200,
      content_type: "text/html",
      title: article.title,
      description: article.description,
      language: "en",
      published_at: article.publishedAt,
      truncated: false
    })
    expect(page["links"]).toBeUndefined()
    const markdown = page["content"] as string
    expect(markdown.startsWith(`# ${article.title}`)).toBe(true)
    for (const heading of article.headings) expect(markdown).toContain(`\n${heading}\n`)
    for (const item of article.listItems) expect(markdown).toMatch(new RegExp(`^-\\s+${item}$`, "m"))
    expect(markdown).toMatch(new RegExp(`^1\\.\\s+${article.orderedItems[0]}$`, "m"))
    expect(markdown).toMatch(new RegExp(`^2\\.\\s+${article.orderedItems[1]}$`, "m"))
    expect(markdown).toContain(`${article.codeFence}\n${article.code}\n`)
    expect(markdown).toContain(`[${article.link.text}](${site.url(article.link.path)})`)
    for (const noise of [...article.boilerplate, "scripts never run", "color: #333", "Popular"]) expect(markdown).not.toContain(noise)
  })

  it("gives plain text, cleaned HTML, the whole page and the page's links on request", async () => {
    const text = (await scrape({ url: site.url(articlePath), format: "text" }))["content"] as string
    expect(text).not.toMatch(/^#/m)
    expect(text).toContain(`- ${article.listItems[0]}\n- ${article.listItems[1]}`)
    expect(text).toContain(article.code)
    expect(text).not.toContain("Buy discount kayaks")

    const html = (await scrape({ url: site.url(articlePath), format: "html" }))["content"] as string
    expect(html).toContain("<h2>Hunting</h2>")
    expect(html).toContain(`href="${site.url(article.link.path)}"`)
    expect(html).not.toMatch(/<(script|style|nav|button)/i)

    const whole = await scrape({ url: site.url(articlePath), only_main_content: false, include_links: true })
    expect(whole["content"]).toContain("Site navigation home")
    expect(whole["content"]).toContain("## Hunting")
    expect(whole["content"]).not.toContain("scripts never run")
    expect(whole["links"]).toEqual(
      expect.arrayContaining([site.url("/"), site.url("/about"), site.url(article.link.path), "https://ads.example/click", site.url("/privacy")])
    )
    expect(new Set(whole["links"]).size).toBe(whole["links"].length)
  })

  it("follows a redirect chain and reports where it ended", async () => {
    const page = await scrape({ url: site.url("/hop/3") })
    expect(page["final_url"]).toBe(site.url(articlePath))
    expect(page["status_code"]).toBe(200)
    expect(page["title"]).toBe(article.title)
  })

  it("reports a 4xx or 5xx page as a result with its status_code", async () => {
    const missing = await scrape({ url: site.url("/nowhere") })
    expect(missing).toMatchObject({ status_code: 404, title: "Not found" })
    expect(missing["content"]).toContain("Page not found")
    const down = await scrape({ url: site.url("/broken"), format: "text" })
    expect(down).toMatchObject({ status_code: 503, title: "Down for maintenance" })
    expect(down["content"]).toContain("Back soon")
  })

  it("reads a PDF through the document extractor", async () => {
    const page = await scrape({ url: site.url(pdfPath) })
    expect(page).toMatchObject({ status_code: 200, content_type: "application/pdf", final_url: site.url(pdfPath) })
    for (const token of pdfFixture.expected_tokens ?? []) expect(collapse(page["content"])).toContain(token)
    expect(pdfFixture.expected_tokens?.length).toBeGreaterThan(0)
  })

  it("honours robots.txt, the group naming the gateway's user agent included", async () => {
    for (const path of ["/private/area", "/members/list"]) {
      const res = await tools.call("scrape", { url: site.url(path) })
      expect(res.status).toBe(400)
      expect(await errorOf(res)).toMatchObject({ param: "url", code: "url_disallowed_by_robots_txt" })
    }
    const seen = site.server.requests.map((r) => r.path)
    expect(seen).not.toContain("/private/area")
    expect(seen).not.toContain("/members/list")
    const robots = site.server.requests.find((r) => r.path === "/robots.txt")
    expect(robots).toBeDefined()
  })

  it("names url when the target cannot be reached", async () => {
    const res = await tools.call("scrape", { url: `http://127.0.0.1:${await closedPort()}/page` })
    expect(res.status).toBe(400)
    expect(await errorOf(res)).toMatchObject({ param: "url", code: "url_unreachable", type: "invalid_request_error" })
    const scheme = await tools.call("scrape", { url: "ftp://example.com/file" })
    expect(await errorOf(scheme)).toMatchObject({ param: "url", code: "unsupported_url_scheme" })
  })

  it("maps the site: every sitemap URL (index, gzipped child), the start page's links, nothing off-site, each once", async () => {
    const res = await tools.call("map", { url: site.url("/") })
    expect(res.status).toBe(200)
    const { urls } = (await res.json()) as { urls: Array<string> }
    for (const path of sitemapPages) expect(urls).toContain(site.url(path))
    expect(urls).toContain(site.url("/contact"))
    expect(new Set(urls).size).toBe(urls.length)
    for (const url of urls) expect(url.startsWith(`${site.origin}/`)).toBe(true)
    for (const off of [...offSiteUrls, "https://external.example/partner"]) expect(urls).not.toContain(off)
    expect(urls.some((u) => u.includes("#"))).toBe(false)
    expect(site.server.requests.map((r) => r.path)).toEqual(expect.arrayContaining(["/sitemap_index.xml", "/sitemaps/pages.xml.gz", "/sitemaps/events.xml"]))
  })

  it("filters a map by search and stops at limit", async () => {
    const filtered = (await (await tools.call("map", { url: site.url("/"), search: "EVENTS 2024" })).json()) as { urls: Array<string> }
    expect(filtered.urls.sort()).toEqual(sitemapPages.filter((p) => p.startsWith("/events")).map((p) => site.url(p)).sort())
    const limited = (await (await tools.call("map", { url: site.url("/"), limit: 2 })).json()) as { urls: Array<string> }
    expect(limited.urls).toHaveLength(2)
  })

  it("searches through SearXNG's JSON API", async () => {
    const { searxng } = gw.upstreams
    searxng.reply({ kind: "json", status: 200, body: searxngAnswer })
    const res = await tools.call("search", { query: "river otters", limit: 2, language: "en", country: "gb", recency: "month" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { results: Array<Record<string, unknown>> }
    expect(body.results).toEqual([
      { title: "Otter - Wikipedia", url: "https://en.wikipedia.org/wiki/Otter", snippet: "Otters are carnivorous mammals in the subfamily Lutrinae.", published_at: "2024-02-10T00:00:00.000Z" },
      { title: "River otter facts", url: "https://otters.example/facts", snippet: "Eurasian otters live along rivers & lakes." }
    ])
    const sent = new URL(searxng.requests[0]!.url, "http://x")
    expect(sent.pathname).toBe("/search")
    expect(Object.fromEntries(sent.searchParams)).toEqual({ q: "river otters", format: "json", pageno: "1", language: "en-GB", time_range: "month" })
  })

  it("refuses bad bodies with a 400 naming the field, as the listed schemas do", async () => {
    await tools.callInvalid("scrape", {}, "url")
    await tools.callInvalid("scrape", { url: site.url("/"), format: "pdf" }, "format")
    await tools.callInvalid("scrape", { url: site.url("/"), timeout_ms: 999_999 }, "timeout_ms")
    await tools.callInvalid("scrape", { url: site.url("/"), javascript: true }, "javascript")
    await tools.callInvalid("map", { url: site.url("/"), limit: 0 }, "limit")
    await tools.callInvalid("map", { url: site.url("/"), include_subdomains: "yes" }, "include_subdomains")
    await tools.callInvalid("search", { query: "otters", limit: 21 }, "limit")
    await tools.callInvalid("search", { query: "otters", country: "GBR" }, "country")
    await tools.callInvalid("search", { query: "" }, "query")
    await tools.callInvalid("search", { query: "otters", recency: "hour" }, "recency")

    const malformed = await gw.postJson("/v1/tools/scrape", "{not json")
    expect(malformed.status).toBe(400)
    expect((await errorOf(malformed)).code).toBe("invalid_json")
    const array = await gw.postJson("/v1/tools/scrape", "[]")
    expect(array.status).toBe(400)
    const plain = await fetch(`${gw.url}/v1/tools/scrape`, { method: "POST", headers: { ...gw.auth(), "content-type": "text/plain" }, body: "{}" })
    expect(plain.status).toBe(415)
  })

  it("answers 404 for an unknown tool, 401 without a key, 403 without the tools scope, 405 on a wrong method", async () => {
    const unknown = await gw.postJson("/v1/tools/crawl", { url: site.url("/") })
    expect(unknown.status).toBe(404)
    expect(await errorOf(unknown)).toMatchObject({ type: "not_found_error", code: "tool_not_found" })
    expect((await fetch(`${gw.url}/v1/tools`)).status).toBe(401)
    const noKey = await fetch(`${gw.url}/v1/tools/scrape`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    expect(noKey.status).toBe(401)
    const chatOnly = await gw.createKey({ scopes: ["chat"] })
    expect((await tools.list(chatOnly.secret)).status).toBe(403)
    expect((await gw.postJson("/v1/tools/scrape", { url: site.url("/") }, chatOnly.secret)).status).toBe(403)
    const wrongMethod = await fetch(`${gw.url}/v1/tools/scrape`, { method: "DELETE", headers: gw.auth() })
    expect(wrongMethod.status).toBe(405)
  })

  it("writes one usage event per call, units 1 at the tool's price, and never returns the price", async () => {
    const fresh = await gw.createKey()
    const ok = await tools.call("scrape", { url: site.url(articlePath) }, fresh.secret)
    const body = await ok.text()
    expect(body).not.toMatch(/cost|price|billed|usd/i)
    const refused = await tools.call("scrape", { url: site.url("/private/x") }, fresh.secret)
    expect(refused.status).toBe(400)
    await refused.arrayBuffer()
    await new Promise((r) => setTimeout(r, 50))
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT d.name AS endpoint, e.status, e.units, e.cost_nano_usd, m.name AS requested_model
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq JOIN usage_endpoints d ON d.id = e.endpoint
          LEFT JOIN usage_labels m ON m.id = e.requested_model
          WHERE k.id = ${fresh.keyId} ORDER BY e.status`
      })
    )
    expect(rows.map((r) => ({ ...r, units: Number(r["units"]), cost_nano_usd: Number(r["cost_nano_usd"]) }))).toEqual([
      { endpoint: "tools", status: 200, units: 1, cost_nano_usd: 2_000_000, requested_model: "scrape" },
      { endpoint: "tools", status: 400, units: 0, cost_nano_usd: 0, requested_model: "scrape" }
    ])
  })
})
