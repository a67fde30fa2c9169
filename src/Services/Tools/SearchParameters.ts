import * as Schema from "effect/Schema"
import { withDefault } from "./ToolDefinition.ts"

export const searchDescription =
  "Searches the web and returns the top results, each with its title, URL, a snippet and, when known, when it was published."

export const Recency = Schema.Literals(["day", "week", "month", "year"])
export type Recency = typeof Recency.Type

/** The request body of `POST /v1/tools/search`. */
export const SearchParameters = Schema.Struct({
  query: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(400)).annotate({ description: "What to search for." }),
  limit: withDefault(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 20 })), 10, "The most results to return."),
  country: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[A-Za-z]{2}$/u, { expected: "a two-letter ISO 3166-1 country code" })).annotate({
      description: "Prefer results for this country: a two-letter ISO 3166-1 code such as `US` or `DE`."
    })
  ),
  language: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[A-Za-z]{2}$/u, { expected: "a two-letter ISO 639-1 language code" })).annotate({
      description: "Prefer results in this language: a two-letter ISO 639-1 code such as `en` (back-ends without a language filter ignore it)."
    })
  ),
  recency: Schema.optionalKey(Recency.annotate({ description: "Only results published within the last day, week, month or year." }))
}).annotate({ title: "search", description: searchDescription })

export type SearchParameters = typeof SearchParameters.Type

export interface SearchHit {
  readonly title: string
  readonly url: string
  readonly snippet: string
  /** ISO 8601, when the back-end knows it. */
  readonly published_at?: string
}

export interface SearchResult {
  readonly results: ReadonlyArray<SearchHit>
}
