import * as Schema from "effect/Schema"
import { withDefault } from "./ToolDefinition.ts"

export const scrapeDescription =
  "Fetches one web page or document and returns its content as Markdown, plain text or cleaned HTML, with its title, description, language and links. HTML pages are reduced to their main content; PDFs, Office documents and text files are converted to text."

/** The request body of `POST /v1/tools/scrape`; `maxTimeoutMs` is `fetch.timeout_ms`, the most a scrape may take. */
export const makeScrapeParameters = (maxTimeoutMs: number) =>
  Schema.Struct({
    url: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(8192)).annotate({
      description: "The http(s) URL to fetch.",
      format: "uri"
    }),
    format: withDefault(
      Schema.Literals(["markdown", "text", "html"]),
      "markdown",
      "The form of `content`: Markdown (headings, lists, links, tables, code blocks kept), plain text, or cleaned HTML."
    ),
    only_main_content: withDefault(
      Schema.Boolean,
      true,
      "Keep only the page's main content (the article), without navigation, headers, footers, sidebars and ads."
    ),
    include_links: withDefault(Schema.Boolean, false, "Also return `links`: every distinct http(s) link on the page, absolute."),
    timeout_ms: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: Math.max(1000, maxTimeoutMs) })).annotate({
        description: "Time allowed for the whole fetch, redirects included; at most the gateway's limit."
      })
    )
  }).annotate({ title: "scrape", description: scrapeDescription })

export type ScrapeParameters = ReturnType<typeof makeScrapeParameters>["Type"]

export interface ScrapeResult {
  readonly url: string
  /** The URL the content came from, after redirects. */
  readonly final_url: string
  /** The target's HTTP status: a 4xx or 5xx page is a result too. */
  readonly status_code: number
  /** The Content-Type the target declared, without parameters. */
  readonly content_type: string | null
  readonly title: string | null
  readonly description: string | null
  readonly language: string | null
  readonly content: string
  /** True when `content` was cut at `tools.max_content_chars`. */
  readonly truncated: boolean
  readonly links?: ReadonlyArray<string>
  readonly published_at?: string
}
