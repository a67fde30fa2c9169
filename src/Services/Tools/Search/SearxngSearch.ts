import { hit, hitsOf, record, type SearchBackend } from "./SearchBackend.ts"

/**
 * A self-hosted SearXNG instance through its JSON API: `GET /search?q=…&format=json` (the
 * `json` format must be enabled in the instance's `settings.yml`, `search.formats`). It pages
 * by a fixed number of results, so the tool cuts the first page to `limit`. No key.
 */
export const searxngSearch: SearchBackend = {
  kind: "searxng",
  defaultBaseUrl: undefined,
  defaultKeyEnv: undefined,
  request: (query, context) => {
    const params = new URLSearchParams({ q: query.query, format: "json", pageno: "1" })
    // SearXNG takes a locale such as `en-US`; a country alone has no parameter of its own.
    if (query.language !== undefined) {
      params.set("language", query.country === undefined ? query.language.toLowerCase() : `${query.language.toLowerCase()}-${query.country.toUpperCase()}`)
    }
    if (query.recency !== undefined) params.set("time_range", query.recency)
    return { method: "GET", url: `${context.baseUrl}/search?${params}`, headers: { accept: "application/json" } }
  },
  decode: (body) =>
    hitsOf(record(body)?.["results"], (item) =>
      hit({ title: item["title"], url: item["url"], snippet: item["content"], published: item["publishedDate"] })
    )
}
