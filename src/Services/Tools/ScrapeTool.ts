import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { type FetchedUrl, UrlFetchCode } from "../Fetch/UrlFetcher.ts"
import { scrapePageJob } from "./Html/ScrapePageJob.ts"
import { looksLikeHtml, mediaTypeOf } from "./Html/TextBody.ts"
import { disallowedByRobots, readRobots } from "./Robots.ts"
import { makeScrapeParameters, type ScrapeParameters, type ScrapeResult, scrapeDescription } from "./ScrapeParameters.ts"
import { defineTool, type Tool } from "./ToolDefinition.ts"
import { type ToolServices, toolMaxBytes } from "./ToolServices.ts"

const param = "url"
/** robots.txt gets at most this much of a scrape's time. */
const robotsTimeoutMs = 5_000

/** Cuts `text` to `max` UTF-16 units without splitting a surrogate pair. */
export const cutText = (text: string, max: number): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= max) return { text, truncated: false }
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max
  return { text: text.slice(0, end), truncated: true }
}

/** The extractor's 400 (which names the file) as one naming `url`. */
const unreadable = (url: string, error: GatewayError): GatewayError =>
  error.reason._tag === "InvalidRequest" && error.reason.param === undefined
    ? GatewayError.invalid(`The document at ${url} could not be read: ${error.reason.message}`, param, error.reason.code)
    : error

const absoluteHttpUrl = (raw: string): URL | undefined => {
  try {
    const url = new URL(raw.trim())
    const ok = (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === ""
    return ok ? url : undefined
  } catch {
    return undefined
  }
}

interface Extracted {
  readonly title: string | null
  readonly description: string | null
  readonly language: string | null
  readonly publishedAt: string | undefined
  readonly content: string
  readonly links: ReadonlyArray<string>
}

/**
 * `scrape`: one URL, fetched through the guarded fetcher (after robots.txt allows it), turned
 * into Markdown, text or cleaned HTML. HTML is read here; every other format goes through the
 * document Extractor (PDF, Office, text), in its worker threads. A 4xx/5xx answer is a result
 * with its `status_code`; a URL that cannot be fetched is a 400 naming `url`.
 */
export const makeScrapeTool = (services: ToolServices): Tool => {
  const { fetcher, extractor, tools } = services

  const extract = (page: FetchedUrl, request: ScrapeParameters, timeoutMs: number): Effect.Effect<Extracted, GatewayError> => {
    if (looksLikeHtml(page.bytes, page.contentType)) {
      // linkedom, Readability and Turndown run in an extraction worker, bounded in time and
      // memory: a hostile page costs a worker slot, never the event loop.
      const input = {
        bytes: page.bytes,
        contentType: page.contentType,
        pageUrl: page.finalUrl,
        format: request.format,
        mainOnly: request.only_main_content,
        maxLinks: tools.max_links,
        contentLanguage: page.headers["content-language"]
      }
      return extractor.runJob(scrapePageJob, input, { content: page.bytes, timeoutMs }).pipe(
        Effect.mapError((error) => unreadable(page.finalUrl, error))
      )
    }
    const empty: Extracted = { title: null, description: null, language: null, publishedAt: undefined, content: "", links: [] }
    if (page.bytes.length === 0) return Effect.succeed(empty)
    return extractor.extract({ bytes: page.bytes, filename: page.filename ?? "document", mimeType: mediaTypeOf(page.contentType) }).pipe(
      Effect.map((document): Extracted => ({ ...empty, language: page.headers["content-language"] ?? null, content: document.text })),
      Effect.catch((error) => {
        // An error page in a format the extractor does not read still has a status worth reporting.
        if (page.status >= 400) return Effect.succeed(empty)
        return Effect.fail(unreadable(page.finalUrl, error))
      })
    )
  }

  const run = Effect.fn("ScrapeTool.run")(function* (request: ScrapeParameters) {
    const startedAt = yield* Clock.currentTimeMillis
    const budgetMs = Math.min(request.timeout_ms ?? services.fetch.timeout_ms, services.fetch.timeout_ms)
    const target = absoluteHttpUrl(request.url)
    if (target === undefined) {
      // The fetcher's own check says precisely what is wrong with the URL.
      yield* fetcher.admit(request.url, param)
      return yield* GatewayError.invalid("The URL in url is not a valid absolute http(s) URL.", param, UrlFetchCode.invalidUrl)
    }
    yield* Effect.annotateCurrentSpan({ "tool.url.host": target.host })
    if (tools.respect_robots_txt) {
      const robots = yield* readRobots(fetcher, target, {
        userAgent: tools.user_agent,
        timeoutMs: Math.min(robotsTimeoutMs, budgetMs),
        param
      })
      if (!robots.allows(target.href)) return yield* disallowedByRobots(target.href, param, tools.user_agent)
    }
    const elapsed = (yield* Clock.currentTimeMillis) - startedAt
    const page = yield* fetcher.fetch(request.url, {
      param,
      userAgent: tools.user_agent,
      acceptErrorStatus: true,
      maxBytes: toolMaxBytes(services),
      timeoutMs: Math.max(1, budgetMs - elapsed),
      accept: "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/*;q=0.7,*/*;q=0.5"
    })
    const left = budgetMs - ((yield* Clock.currentTimeMillis) - startedAt)
    const extracted = yield* extract(page, request, Math.max(1_000, left))
    const content = cutText(extracted.content, tools.max_content_chars)
    const result: ScrapeResult = {
      url: request.url,
      final_url: page.finalUrl,
      status_code: page.status,
      content_type: mediaTypeOf(page.contentType) ?? null,
      title: extracted.title,
      description: extracted.description,
      language: extracted.language,
      content: content.text,
      truncated: content.truncated,
      ...(request.include_links ? { links: extracted.links } : {}),
      ...(extracted.publishedAt === undefined ? {} : { published_at: extracted.publishedAt })
    }
    return result
  })

  return defineTool({
    id: "scrape",
    description: scrapeDescription,
    parameters: makeScrapeParameters(services.fetch.timeout_ms),
    run
  })
}
