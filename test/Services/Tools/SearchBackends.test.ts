import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import type { GatewayError } from "../../../src/Domain/GatewayError.ts"
import { SearchSettings } from "../../../src/Domain/ToolsSettings.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../../../src/Services/Fetch/UrlFetcher.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { makeSearchClient } from "../../../src/Services/Tools/Search/SearchClient.ts"
import { tavilyCountry } from "../../../src/Services/Tools/Search/TavilySearch.ts"
import type { SearchParameters } from "../../../src/Services/Tools/SearchParameters.ts"
import { searchBackends, WebTools } from "../../../src/Services/Tools/WebTools.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { braveAnswer, exaAnswer, searxngAnswer, tavilyAnswer } from "../../support/SearchFixtures.ts"

const upstream = new FakeUpstream()
beforeAll(() => upstream.start())
afterAll(() => upstream.stop())
beforeEach(() => upstream.reset())

const key = "sk-search-secret-123"
const settings = (backend: string, extra: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(SearchSettings)({ backend, base_url: `${upstream.url}/`, ...extra })
const client = (backend: keyof typeof searchBackends, extra: Record<string, unknown> = {}) =>
  makeSearchClient(searchBackends[backend], settings(backend, extra), backend === "searxng" ? undefined : key)

const query: SearchParameters = { query: "river otters", limit: 2, country: "de", language: "de", recency: "week" }

const otter = { title: "Otter - Wikipedia", url: "https://en.wikipedia.org/wiki/Otter" }

describe("search back-ends speak their own APIs", () => {
  it.live("SearXNG: GET /search?format=json, first page cut to the limit", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "json", status: 200, body: searxngAnswer })
      const hits = yield* client("searxng")(query)
      expect(hits.map((h) => h.url)).toEqual(["https://en.wikipedia.org/wiki/Otter", "https://otters.example/facts"])
      expect(hits[1]!.snippet).toBe("Eurasian otters live along rivers & lakes.")
      const sent = upstream.requests[0]!
      expect(sent.method).toBe("GET")
      const url = new URL(sent.url, upstream.url)
      expect(url.pathname).toBe("/search")
      expect(Object.fromEntries(url.searchParams)).toEqual({ q: "river otters", format: "json", pageno: "1", language: "de-DE", time_range: "week" })
      expect(sent.headers["authorization"]).toBeUndefined()
    }))

  it.live("Brave: GET /res/v1/web/search with X-Subscription-Token; highlights and entities stripped", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "json", status: 200, body: braveAnswer })
      const hits = yield* client("brave")(query)
      expect(hits).toEqual([
        { ...otter, snippet: "Otters are carnivorous mammals in the subfamily Lutrinae.", published_at: "2024-02-10T08:30:00.000Z" },
        { title: "River otter facts & figures", url: "https://otters.example/facts", snippet: "How river otters live." }
      ])
      const sent = upstream.requests[0]!
      const url = new URL(sent.url, upstream.url)
      expect(url.pathname).toBe("/res/v1/web/search")
      expect(Object.fromEntries(url.searchParams)).toEqual({ q: "river otters", count: "2", country: "DE", search_lang: "de", freshness: "pw" })
      expect(sent.headers["x-subscription-token"]).toBe(key)
      expect(sent.headers["accept"]).toBe("application/json")
    }))

  it.live("Brave: a query without web results is an empty list", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "json", status: 200, body: { type: "search", query: { original: "zzqx" } } })
      expect(yield* client("brave")(query)).toEqual([])
    }))

  it.live("Tavily: POST /search with a bearer key, country by name, time_range", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "json", status: 200, body: tavilyAnswer })
      const hits = yield* client("tavily")(query)
      expect(hits).toEqual([
        { ...otter, snippet: "Otters are carnivorous mammals in the subfamily Lutrinae." },
        { title: "Otters return to the river", url: "https://news.example/otters", snippet: "A survey found otters on all three rivers.", published_at: "2024-02-10T09:00:00.000Z" }
      ])
      const sent = upstream.requests[0]!
      expect(sent.method).toBe("POST")
      expect(new URL(sent.url, upstream.url).pathname).toBe("/search")
      expect(sent.headers["authorization"]).toBe(`Bearer ${key}`)
      expect(sent.body).toEqual({
        query: "river otters",
        max_results: 2,
        topic: "general",
        search_depth: "basic",
        include_answer: false,
        time_range: "week",
        country: "germany"
      })
      expect(tavilyCountry("us")).toBe("united states")
      expect(tavilyCountry("zz")).toBeUndefined()
      expect(tavilyCountry("xy")).toBeUndefined()
    }))

  it.live("Exa: POST /search with x-api-key, highlights as the snippet, recency as startPublishedDate", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "json", status: 200, body: exaAnswer })
      const before = Date.now()
      const hits = yield* client("exa")(query)
      expect(hits).toEqual([
        { ...otter, snippet: "Otters are carnivorous mammals. … They live near water.", published_at: "2024-02-10T00:00:00.000Z" },
        { title: "River otter facts", url: "https://otters.example/facts", snippet: "How river otters live." }
      ])
      const sent = upstream.requests[0]!
      expect(new URL(sent.url, upstream.url).pathname).toBe("/search")
      expect(sent.headers["x-api-key"]).toBe(key)
      const body = sent.body as Record<string, unknown>
      expect(body).toMatchObject({ query: "river otters", numResults: 2, type: "auto", userLocation: "DE", contents: { highlights: { maxCharacters: 400 } } })
      const start = Date.parse(body["startPublishedDate"] as string)
      expect(before - start).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000)
      expect(before - start).toBeLessThanOrEqual(7 * 86_400_000 + 1000)
    }))
})

const failureOf = (effect: Effect.Effect<unknown, GatewayError>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error("expected the search to fail")
    const error = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (error === undefined || error._tag !== "Fail") throw new Error("expected a typed failure")
    return error.error.reason
  })

describe("back-end failures are upstream errors without the key", () => {
  const cases: ReadonlyArray<readonly [string, Parameters<FakeUpstream["reply"]>[0], Record<string, unknown>]> = [
    ["a refused key", { kind: "json", status: 401, body: { error: `invalid key ${key}` } }, { kind: "auth", status: 401 }],
    ["throttling", { kind: "json", status: 429, body: {}, headers: { "retry-after": "7" } }, { kind: "rate_limited", retryAfterMs: 7000 }],
    ["a server error", { kind: "json", status: 502, body: {} }, { kind: "server", status: 502 }],
    ["a bad query", { kind: "json", status: 422, body: {} }, { kind: "rejected", status: 422 }],
    ["not JSON", { kind: "raw", status: 200, body: "<html>login</html>" }, { kind: "bad_response" }],
    ["another API's shape", { kind: "json", status: 200, body: { items: [] } }, { kind: "bad_response" }]
  ]
  for (const [what, reply, expected] of cases) {
    it.live(what, () =>
      Effect.gen(function* () {
        upstream.reply(reply)
        const reason = yield* failureOf(client("brave")(query))
        expect(reason).toMatchObject({ _tag: "UpstreamFailure", provider: "search:brave", ...expected })
        expect(JSON.stringify(reason)).not.toContain(key)
      }))
  }

  it.live("a back-end that does not answer within timeout_ms", () =>
    Effect.gen(function* () {
      upstream.reply({ kind: "hang" })
      const reason = yield* failureOf(client("tavily", { timeout_ms: 200 })(query))
      expect(reason).toMatchObject({ _tag: "UpstreamFailure", kind: "timeout" })
    }))
})

describe("the search configuration", () => {
  const build = (tools: Record<string, unknown>, env: Record<string, string>) => {
    const config = Schema.decodeUnknownSync(GatewayConfig)({ tools })
    return Effect.gen(function* () {
      return (yield* WebTools).list.map((t) => t.id)
    }).pipe(
      Effect.provide(
        WebTools.layer.pipe(
          Layer.provide(Layer.mergeAll(UrlFetcher.layer, Extractor.layerWithoutCache)),
          Layer.provide(GatewayConfigFile.fromConfig(config, "gateway.yaml")),
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
        )
      )
    )
  }

  it.live("offers search when the back-end's key is in its environment variable", () =>
    Effect.gen(function* () {
      expect(yield* build({ search: { backend: "brave" } }, { BRAVE_API_KEY: "k" })).toEqual(["scrape", "search", "map"])
      expect(yield* build({ search: { backend: "exa", api_key_env: "MY_EXA" } }, { MY_EXA: "k" })).toEqual(["scrape", "search", "map"])
      expect(yield* build({}, {})).toEqual(["scrape", "map"])
    }))

  it.live("stops start-up naming the key when the variable is unset, or SearXNG has no base_url", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(build({ search: { backend: "tavily" } }, {}))
      expect(String(missing)).toBe(
        "gateway.yaml: tools.search.api_key_env: environment variable TAVILY_API_KEY is not set (the tavily back-end needs a key)"
      )
      const noUrl = yield* Effect.flip(build({ search: { backend: "searxng" } }, {}))
      expect(String(noUrl)).toBe("gateway.yaml: tools.search.base_url: the searxng back-end needs base_url")
    }))
})
