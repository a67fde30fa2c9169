import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { type FetchedUrl, UrlFetchCode } from "../Fetch/UrlFetcher.ts"
import { pageLinksJob } from "./Html/PageLinksJob.ts"
import { looksLikeHtml } from "./Html/TextBody.ts"
import { mapDescription, MapParameters, type MapResult } from "./MapParameters.ts"
import { disallowedByRobots, readRobots } from "./Robots.ts"
import { sitemapJob } from "./SitemapJob.ts"
import { normaliseUrl, siteScope } from "./SiteScope.ts"
import { defineTool, type Tool } from "./ToolDefinition.ts"
import { type ToolServices, toolMaxBytes } from "./ToolServices.ts"

const param = "url"
/** Links read from the start page, before scope and search filters. */
const maxPageLinks = 20_000

const matcher = (search: string | undefined) => {
  const words = (search ?? "").toLowerCase().split(/\s+/).filter((w) => w !== "")
  return (url: URL) => {
    if (words.length === 0) return true
    let text = url.href.toLowerCase()
    try {
      text = decodeURIComponent(text)
    } catch {
      // A malformed escape: match against the URL as written.
    }
    return words.every((word) => text.includes(word))
  }
}

/**
 * `map`: the URLs of one site. Every document is fetched through the guarded fetcher (robots.txt,
 * each sitemap and child sitemap, the start page), and the hosts of the URLs it returns are
 * checked against the same address policy, so no private address is handed out either. Bounded
 * by `tools.map.max_fetches`, `tools.map.timeout_ms` (what was found by then is returned) and
 * `limit`. A start URL that cannot be reached is a 400 naming `url`; a broken sitemap is skipped.
 */
export const makeMapTool = (services: ToolServices): Tool => {
  const { fetcher, extractor, tools } = services
  const settings = tools.map
  const maxBytes = toolMaxBytes(services)

  const run = Effect.fn("MapTool.run")(function* (request: MapParameters) {
    const start = normaliseUrl(request.url)
    if (start === undefined) {
      yield* fetcher.admit(request.url, param)
      return yield* GatewayError.invalid("The URL in url is not a valid absolute http(s) URL.", param, UrlFetchCode.invalidUrl)
    }
    const startedAt = yield* Clock.currentTimeMillis
    const remaining = Effect.map(Clock.currentTimeMillis, (now) => settings.timeout_ms - (now - startedAt))
    const scope = siteScope(start, request.include_subdomains)
    const sitemapScope = siteScope(start, true)
    const wanted = matcher(request.search)
    const found = new Map<string, URL>()
    const full = () => found.size >= request.limit
    const add = (url: URL | undefined) => {
      if (url !== undefined && !full() && scope.contains(url) && wanted(url)) found.set(url.href, url)
    }
    let fetches = 0

    /** One document within the fetch and time budgets; undefined when out of budget or on any failure. */
    const fetchDocument = (url: string, accept: string) =>
      Effect.gen(function* () {
        const left = yield* remaining
        if (fetches >= settings.max_fetches || left <= 0) return undefined
        fetches++
        return yield* fetcher
          .fetch(url, { param, userAgent: tools.user_agent, maxBytes, timeoutMs: Math.min(left, services.fetch.timeout_ms), accept })
          .pipe(Effect.map((answer): FetchedUrl | undefined => answer))
      })

    // robots.txt first: it names the sitemaps, and a host that cannot be reached fails here with a 400.
    fetches++
    const robots = yield* readRobots(fetcher, start, {
      userAgent: tools.user_agent,
      timeoutMs: Math.min(settings.timeout_ms, services.fetch.timeout_ms),
      param
    })

    // The start page: itself and its links.
    const pageLinksFound: Array<URL> = []
    if (!tools.respect_robots_txt || robots.allows(start.href)) {
      const page = yield* fetchDocument(start.href, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5").pipe(
        Effect.catch(() => Effect.succeed(undefined))
      )
      if (page !== undefined) {
        add(normaliseUrl(page.finalUrl))
        if (looksLikeHtml(page.bytes, page.contentType)) {
          // Parsed in an extraction worker; a page that cannot be read there only gives no links.
          const input = { bytes: page.bytes, contentType: page.contentType, pageUrl: page.finalUrl, max: maxPageLinks }
          const links = yield* extractor
            .runJob(pageLinksJob, input, { content: page.bytes, timeoutMs: Math.max(1_000, yield* remaining) })
            .pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
          for (const link of links) {
            const url = normaliseUrl(link)
            if (url !== undefined) pageLinksFound.push(url)
          }
        }
      }
    } else if (robots.sitemaps.length === 0) {
      return yield* disallowedByRobots(start.href, param, tools.user_agent)
    }

    // Sitemaps, breadth first: those robots.txt names (any host, still through the fetcher), else /sitemap.xml.
    const queue = robots.sitemaps.length > 0 ? [...robots.sitemaps] : [new URL("/sitemap.xml", start).href]
    const seen = new Set(queue)
    while (queue.length > 0 && !full()) {
      const next = queue.shift()!
      const answer = yield* fetchDocument(next, "application/xml, text/xml;q=0.9, */*;q=0.5").pipe(
        Effect.catch(() => Effect.succeed(undefined))
      )
      if (answer === undefined) continue
      // Pages past the limit are dropped in the worker; filters may still reject some, so a margin.
      const input = { bytes: answer.bytes, contentType: answer.contentType, maxBytes, maxPages: 2 * request.limit }
      const entries = yield* extractor
        .runJob(sitemapJob, input, { content: answer.bytes, timeoutMs: Math.max(1_000, yield* remaining) })
        .pipe(Effect.orElseSucceed(() => undefined))
      if (entries === undefined) continue
      for (const page of entries.pages) {
        if (full()) break
        add(normaliseUrl(page))
      }
      for (const child of entries.sitemaps) {
        const url = normaliseUrl(child)
        if (url !== undefined && sitemapScope.contains(url) && !seen.has(url.href)) {
          seen.add(url.href)
          queue.push(url.href)
        }
      }
    }
    for (const url of pageLinksFound) add(url)

    return { urls: yield* admitted([...found.values()]) } satisfies MapResult
  })

  /**
   * Keeps the URLs whose host passes the address policy (checked once per host, in the time
   * left), so a sitemap cannot hand out an internal address. Hosts past `max_hosts` are dropped.
   */
  const admitted = (urls: ReadonlyArray<URL>) =>
    Effect.gen(function* () {
      const verdicts = new Map<string, boolean>()
      const kept: Array<string> = []
      for (const url of urls) {
        let ok = verdicts.get(url.host)
        if (ok === undefined) {
          ok =
            verdicts.size < settings.max_hosts &&
            (yield* fetcher.admit(url.origin, param).pipe(
              Effect.timeoutOrElse({ duration: Duration.millis(services.fetch.timeout_ms), orElse: () => Effect.succeed(undefined) }),
              Effect.match({ onFailure: () => false, onSuccess: (admittedUrl) => admittedUrl !== undefined })
            ))
          verdicts.set(url.host, ok)
        }
        if (ok) kept.push(url.href)
      }
      return kept
    })

  return defineTool({ id: "map", description: mapDescription, parameters: MapParameters, run })
}
