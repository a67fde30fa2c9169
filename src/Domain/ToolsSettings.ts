import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The `tools` block of gateway.yaml: the standalone web tools (`/v1/tools`). Fetch limits that
 * are not here (private networks, redirects) come from the `fetch` block, shared with documents.
 */

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))
const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
const HttpUrl = Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/, { expected: "an http(s) URL" }))
const EnvName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { expected: "an environment variable name" })
)

export const SearchBackendKind = Schema.Literals(["searxng", "brave", "tavily", "exa"])
export type SearchBackendKind = typeof SearchBackendKind.Type

export const SearchSettings = Schema.Struct({
  backend: SearchBackendKind,
  /** The back-end's base URL; required for `searxng`, the public API for the hosted ones. */
  base_url: Schema.optionalKey(HttpUrl),
  /** The variable holding the key; defaults to BRAVE_API_KEY, TAVILY_API_KEY or EXA_API_KEY (SearXNG: none). */
  api_key_env: Schema.optionalKey(EnvName),
  /** The whole call to the back-end. */
  timeout_ms: withDefault(PositiveInt, 15_000)
})
export type SearchSettings = typeof SearchSettings.Type

/** US dollars per call of each tool. */
export const ToolPrices = Schema.Struct({
  scrape: withDefault(NonNegative, 0),
  search: withDefault(NonNegative, 0),
  map: withDefault(NonNegative, 0)
})
export type ToolPrices = typeof ToolPrices.Type

export const MapSettings = Schema.Struct({
  /** Documents fetched for one map (robots.txt, sitemaps, the start page). */
  max_fetches: withDefault(PositiveInt, 25),
  /** The whole map; what was found by then is returned. */
  timeout_ms: withDefault(PositiveInt, 30_000),
  /** Distinct hosts of found URLs checked against the address policy; URLs on further hosts are dropped. */
  max_hosts: withDefault(PositiveInt, 20)
})
export type MapSettings = typeof MapSettings.Type

export const ToolsSettings = Schema.Struct({
  /** Sent on every fetch; its first word (before `/`) is the name robots.txt rules are matched against. */
  user_agent: withDefault(Schema.NonEmptyString, "model-gateway-tools/0.1 (web tools of a model gateway; honours robots.txt)"),
  /** Honour robots.txt (RFC 9309) before scraping a page or a map's start page. */
  respect_robots_txt: withDefault(Schema.Boolean, true),
  /** Largest body a tool reads, in MiB (also bounded by `fetch.max_bytes_mb`). */
  max_bytes_mb: withDefault(PositiveInt, 10),
  /** Longest `content` a scrape returns, in characters; longer content is cut and marked `truncated`. */
  max_content_chars: withDefault(PositiveInt, 200_000),
  /** Most `links` a scrape returns. */
  max_links: withDefault(PositiveInt, 1000),
  /** Tool calls one project may run at once on this instance. */
  max_concurrent_per_project: withDefault(PositiveInt, 4),
  /** How long a call waits for one of those slots before a 429. */
  queue_timeout_ms: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 5_000),
  map: withDefault(MapSettings, {}),
  /** No `search` block: the search tool is not offered. */
  search: Schema.optionalKey(SearchSettings),
  pricing: withDefault(ToolPrices, {})
})
export type ToolsSettings = typeof ToolsSettings.Type
