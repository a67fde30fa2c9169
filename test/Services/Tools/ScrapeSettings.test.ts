import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../../../src/Services/Fetch/UrlFetcher.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { WebTools } from "../../../src/Services/Tools/WebTools.ts"
import { articlePath, type FixtureSite, startFixtureSite } from "../../support/FixtureSite.ts"
import { refusal } from "../Fetch/LoopbackServer.ts"

/** The tools' own settings: robots.txt off, another User-Agent, small limits. */
const config = Schema.decodeUnknownSync(GatewayConfig)({
  fetch: { allow_private_networks: true, max_redirects: 2 },
  tools: { respect_robots_txt: false, user_agent: "otter-reader/2.0 (+https://otters.example/bot)", max_content_chars: 120, max_links: 3 }
})

const ToolsLive = WebTools.layer.pipe(
  Layer.provide(Layer.mergeAll(UrlFetcher.layer, Extractor.layerWithoutCache)),
  Layer.provide(GatewayConfigFile.fromConfig(config))
)

const scrape = (body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const tools = yield* WebTools
    return (yield* tools.run(yield* tools.find("scrape")!.decode(body), "p")) as Record<string, any>
  }).pipe(Effect.provide(Layer.orDie(ToolsLive)))

let site: FixtureSite
beforeAll(async () => {
  site = await startFixtureSite()
})
afterAll(async () => {
  await site?.close()
})

describe("scrape settings", () => {
  it.live("with robots.txt off, fetches a disallowed page without asking for robots.txt, as the configured User-Agent", () =>
    Effect.gen(function* () {
      const before = site.server.requests.length
      const page = yield* scrape({ url: site.url("/members/list") })
      expect(page["status_code"]).toBe(200)
      expect(site.server.requests.slice(before).map((r) => r.path)).toEqual(["/members/list"])
      expect(site.userAgents.at(-1)).toBe("otter-reader/2.0 (+https://otters.example/bot)")
    }))

  it.live("cuts content at max_content_chars and links at max_links", () =>
    Effect.gen(function* () {
      const page = yield* scrape({ url: site.url(articlePath), include_links: true })
      expect(page["truncated"]).toBe(true)
      expect(page["content"].length).toBeLessThanOrEqual(120)
      expect(page["links"]).toHaveLength(3)
    }))

  it.live("stops a redirect chain longer than fetch.max_redirects with a 400 naming url", () =>
    Effect.gen(function* () {
      const error = yield* refusal(scrape({ url: site.url("/hop/5") }))
      expect(error).toMatchObject({ param: "url", code: "url_too_many_redirects" })
    }))
})
