import { hit, hitsOf, record, type SearchBackend } from "./SearchBackend.ts"

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })

/** Tavily names countries in lower-case English ("united states"), not by code. */
export const tavilyCountry = (code: string): string | undefined => {
  try {
    const name = regionNames.of(code.toUpperCase())
    // `ZZ` is CLDR's own "Unknown Region".
    return name === undefined || name === code.toUpperCase() || name === "Unknown Region" ? undefined : name.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * Tavily's Search API: `POST /search` with `Authorization: Bearer <key>` and a JSON body
 * (`query`, `max_results` up to 20, `time_range`, `country` for the general topic); hits are
 * `results[]` (`title`, `url`, `content`, `published_date` when Tavily has one). It has no
 * language filter.
 */
export const tavilySearch: SearchBackend = {
  kind: "tavily",
  defaultBaseUrl: "https://api.tavily.com",
  defaultKeyEnv: "TAVILY_API_KEY",
  request: (query, context) => {
    const country = query.country === undefined ? undefined : tavilyCountry(query.country)
    const body = {
      query: query.query,
      max_results: query.limit,
      topic: "general",
      search_depth: "basic",
      include_answer: false,
      ...(query.recency === undefined ? {} : { time_range: query.recency }),
      ...(country === undefined ? {} : { country })
    }
    return {
      method: "POST",
      url: `${context.baseUrl}/search`,
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${context.apiKey ?? ""}` },
      body: JSON.stringify(body)
    }
  },
  decode: (body) =>
    hitsOf(record(body)?.["results"], (item) =>
      hit({ title: item["title"], url: item["url"], snippet: item["content"], published: item["published_date"] })
    )
}
