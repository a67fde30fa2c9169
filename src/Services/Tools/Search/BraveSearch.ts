import { hit, hitsOf, record, type SearchBackend } from "./SearchBackend.ts"

const freshness = { day: "pd", week: "pw", month: "pm", year: "py" } as const

/**
 * Brave Search's Web Search API: `GET /res/v1/web/search` with the key in
 * `X-Subscription-Token`; hits are `web.results[]` (`title`, `url`, `description` with
 * `<strong>` highlights, `page_age`). `count` goes up to 20, as the tool's `limit` does.
 */
export const braveSearch: SearchBackend = {
  kind: "brave",
  defaultBaseUrl: "https://api.search.brave.com",
  defaultKeyEnv: "BRAVE_API_KEY",
  request: (query, context) => {
    const params = new URLSearchParams({ q: query.query, count: String(query.limit) })
    if (query.country !== undefined) params.set("country", query.country.toUpperCase())
    if (query.language !== undefined) params.set("search_lang", query.language.toLowerCase())
    if (query.recency !== undefined) params.set("freshness", freshness[query.recency])
    return {
      method: "GET",
      url: `${context.baseUrl}/res/v1/web/search?${params}`,
      headers: { accept: "application/json", "x-subscription-token": context.apiKey ?? "" }
    }
  },
  decode: (body) => {
    const root = record(body)
    if (root === undefined) return undefined
    // A query with no web results has no `web` section at all.
    const web = record(root["web"])
    if (web === undefined) return root["type"] === "search" ? [] : undefined
    return hitsOf(web["results"], (item) =>
      hit({ title: item["title"], url: item["url"], snippet: item["description"], published: item["page_age"] })
    )
  }
}
