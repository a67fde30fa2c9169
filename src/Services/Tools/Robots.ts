import * as Effect from "effect/Effect"
import robotsParserModule from "robots-parser"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { type UrlFetcher, UrlFetchCode } from "../Fetch/UrlFetcher.ts"
import { decodeTextBody } from "./Html/TextBody.ts"

interface ParsedRobots {
  isAllowed(url: string, userAgent?: string): boolean | undefined
  getSitemaps(): Array<string>
}
// robots-parser is CommonJS (`module.exports = function`); its typings describe an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => ParsedRobots

/** What a site's robots.txt says to this gateway. */
export interface RobotsRules {
  /** Whether the rules let the gateway fetch `url` (a URL on the same origin). */
  readonly allows: (url: string) => boolean
  /** The `Sitemap:` lines, absolute URLs. */
  readonly sitemaps: ReadonlyArray<string>
}

/** RFC 9309 caps what a crawler must read; Google reads the first 500 KiB too. */
const maxRobotsBytes = 500 * 1024

const allowAll: RobotsRules = { allows: () => true, sitemaps: [] }
const disallowAll: RobotsRules = { allows: () => false, sitemaps: [] }

/** The product token robots.txt groups are matched against: the User-Agent's first word. */
export const robotsToken = (userAgent: string): string => userAgent.trim().split(/[\s/]/, 1)[0] ?? "*"

/**
 * Reads `origin`/robots.txt through the guarded fetcher, as RFC 9309 says: a 2xx is parsed
 * (rules of the origin asked for, wherever redirects led); a 4xx means no rules; a 5xx means
 * the whole site is disallowed for now. A robots.txt the gateway cannot reach fails like the
 * page would (same host), so the client hears about the host, not about robots.txt.
 */
export const readRobots = (
  fetcher: UrlFetcher["Service"],
  origin: URL,
  options: { readonly userAgent: string; readonly timeoutMs: number; readonly param: string }
): Effect.Effect<RobotsRules, GatewayError> => {
  const robotsUrl = new URL("/robots.txt", origin).href
  const token = robotsToken(options.userAgent)
  return fetcher
    .fetch(robotsUrl, {
      param: options.param,
      userAgent: options.userAgent,
      acceptErrorStatus: true,
      maxBytes: maxRobotsBytes,
      timeoutMs: options.timeoutMs,
      accept: "text/plain, */*;q=0.5"
    })
    .pipe(
      Effect.map((answer): RobotsRules => {
        if (answer.status >= 500) return disallowAll
        if (answer.status >= 400) return allowAll
        const robots = robotsParser(robotsUrl, decodeTextBody(answer.bytes, answer.contentType))
        return {
          allows: (url) => robots.isAllowed(url, token) !== false,
          sitemaps: robots.getSitemaps().flatMap((raw) => {
            try {
              return [new URL(raw, robotsUrl).href]
            } catch {
              return []
            }
          })
        }
      }),
      // A robots.txt above the limit is not a reason to give up on the site.
      Effect.catch((error) =>
        error.reason._tag === "InvalidRequest" && error.reason.code === UrlFetchCode.tooLarge ? Effect.succeed(allowAll) : Effect.fail(error)
      )
    )
}

/** The 400 for a URL robots.txt keeps the gateway from fetching. */
export const disallowedByRobots = (url: string, param: string, userAgent: string): GatewayError =>
  GatewayError.invalid(
    `The site's robots.txt does not allow '${robotsToken(userAgent)}' to fetch ${url}.`,
    param,
    "url_disallowed_by_robots_txt"
  )
