import type { Recency } from "../SearchParameters.ts"
import { hit, hitsOf, record, type SearchBackend } from "./SearchBackend.ts"

const periodMs: Record<Recency, number> = { day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000, year: 365 * 86_400_000 }

const snippetOf = (item: Record<string, unknown>): unknown => {
  const highlights = item["highlights"]
  if (Array.isArray(highlights) && highlights.some((h) => typeof h === "string")) {
    return highlights.filter((h): h is string => typeof h === "string").join(" … ")
  }
  return item["summary"] ?? item["text"]
}

/**
 * Exa's Search API: `POST /search` with the key in `x-api-key`; `numResults`, `type: "auto"`,
 * `startPublishedDate` for recency, `userLocation` (two-letter country code) and highlights
 * (`contents.highlights`) as the snippet. Hits are `results[]` (`title`, `url`,
 * `publishedDate`, `highlights`). It has no language filter.
 */
export const exaSearch: SearchBackend = {
  kind: "exa",
  defaultBaseUrl: "https://api.exa.ai",
  defaultKeyEnv: "EXA_API_KEY",
  request: (query, context) => {
    const body = {
      query: query.query,
      numResults: query.limit,
      type: "auto",
      contents: { highlights: { maxCharacters: 400 } },
      ...(query.recency === undefined ? {} : { startPublishedDate: new Date(context.now - periodMs[query.recency]).toISOString() }),
      ...(query.country === undefined ? {} : { userLocation: query.country.toUpperCase() })
    }
    return {
      method: "POST",
      url: `${context.baseUrl}/search`,
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": context.apiKey ?? "" },
      body: JSON.stringify(body)
    }
  },
  decode: (body) =>
    hitsOf(record(body)?.["results"], (item) =>
      hit({ title: item["title"], url: item["url"], snippet: snippetOf(item), published: item["publishedDate"] })
    )
}
