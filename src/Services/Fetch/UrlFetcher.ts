import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { FetchSettings } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { classifyAddress, type ForbiddenRange } from "./AddressPolicy.ts"
import { FetchFailure, type Hop } from "./FetchFailure.ts"
import { filenameOf } from "./Filename.ts"
import { type PinnedAddress, requestOnce } from "./RequestOnce.ts"
import { parseTarget, type Target } from "./TargetUrl.ts"

export { classifyAddress, isForbiddenAddress, type ForbiddenRange } from "./AddressPolicy.ts"
export { UrlFetchCode } from "./FetchFailure.ts"

export interface FetchOptions {
  /** The request field the URL came from, e.g. `messages[0].content[1].file.file_url`. */
  readonly param: string
  /** Defaults to `fetch.max_bytes_mb`. */
  readonly maxBytes?: number
  /** Total time for DNS, redirects and the whole body. Defaults to `fetch.timeout_ms`. */
  readonly timeoutMs?: number
  /** The Accept header; `*\/*` when omitted. */
  readonly accept?: string
  /** The User-Agent header; `model-gateway-fetcher/1` when omitted. */
  readonly userAgent?: string
  /**
   * A 4xx or 5xx answer is returned (body read within the same limits) instead of failing:
   * for callers that report the target's status, such as the scrape tool. Documents leave it
   * off, so a missing document is still a 400.
   */
  readonly acceptErrorStatus?: boolean
}

export interface FetchedUrl {
  /** The final answer's status: 2xx, or 4xx/5xx with `acceptErrorStatus`. */
  readonly status: number
  /** The final answer's headers, lower-case names, repeated ones joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  readonly bytes: Uint8Array
  /** The Content-Type header as sent (parameters included), or null. */
  readonly contentType: string | null
  /** The URL that produced the body, after redirects. */
  readonly finalUrl: string
  /** From Content-Disposition, else the last path segment; a bare name, never a path. */
  readonly filename: string | null
}

/** Name resolution as `dns.lookup({ all: true })` gives it. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>

/**
 * Seams for tests, deliberately not reachable from gateway.yaml: production builds the
 * service through `UrlFetcher.layer`, which passes none of them.
 */
export interface UrlFetcherInternals {
  /** Replaces system DNS. */
  readonly resolve?: Resolver
  /**
   * Exact address:port pairs treated as public, so a loopback test server can stand in for an
   * internet host (and redirect to a forbidden one) while the real policy stays in force.
   */
  readonly publicEndpoints?: ReadonlyArray<{ readonly address: string; readonly port: number }>
  /** Extra trusted certificate authorities, PEM, for https test servers. */
  readonly ca?: string
}

const defaultUserAgent = "model-gateway-fetcher/1"

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true })

export class UrlFetcher extends Context.Service<
  UrlFetcher,
  {
    /**
     * GETs a client-supplied URL without letting it reach the gateway's own networks: every
     * hop's host is resolved here, every address is checked, and the socket connects only to
     * the checked addresses. Every failure is a 400 naming `options.param`.
     */
    readonly fetch: (url: string, options: FetchOptions) => Effect.Effect<FetchedUrl, GatewayError>
    /**
     * Checks a URL the gateway will hand on without fetching it (URLs found in a sitemap): its
     * form, and every address its host resolves to, against the same policy. Fails like `fetch`.
     */
    readonly admit: (url: string, param: string) => Effect.Effect<URL, GatewayError>
  }
>()("gateway/UrlFetcher") {
  static readonly make = (settings: FetchSettings, internals: UrlFetcherInternals = {}): UrlFetcher["Service"] => {
    const resolve = internals.resolve ?? systemResolver
    const publicEndpoints = internals.publicEndpoints ?? []

    const refusal = (address: string, port: number): ForbiddenRange | undefined => {
      if (publicEndpoints.some((e) => e.address === address && e.port === port)) return undefined
      const found = classifyAddress(address)
      return found !== undefined && !(found.privateNetwork && settings.allow_private_networks) ? found : undefined
    }

    const addressesOf = (target: Target, hop: Hop): Effect.Effect<ReadonlyArray<PinnedAddress>, GatewayError> =>
      Effect.gen(function* () {
        const { host, port } = target
        if (host._tag === "Address") {
          const refused = refusal(host.address, port)
          if (refused !== undefined) return yield* FetchFailure.forbidden(hop, host.address, refused.label, true)
          return [{ address: host.address, family: isIP(host.address) === 6 ? 6 : 4 }]
        }
        const found = yield* Effect.tryPromise({
          try: () => resolve(host.name),
          catch: () => FetchFailure.notResolved(hop, host.name)
        })
        if (found.length === 0) return yield* FetchFailure.notResolved(hop, host.name)
        const pinned: Array<PinnedAddress> = []
        // One bad answer refuses the host: otherwise the connection could pick it.
        for (const { address } of found) {
          const family = isIP(address)
          const refused = family === 0 ? { label: "not a valid IP address" } : refusal(address, port)
          if (refused !== undefined) return yield* FetchFailure.forbidden(hop, host.name, refused.label, false)
          pinned.push({ address, family: family === 6 ? 6 : 4 })
        }
        return pinned
      })

    const follow = (url: string, options: FetchOptions, maxBytes: number) =>
      Effect.gen(function* () {
        const accept = options.accept ?? "*/*"
        const userAgent = options.userAgent ?? defaultUserAgent
        const acceptErrorStatus = options.acceptErrorStatus === true
        let hop: Hop = { param: options.param, redirects: 0 }
        let target = yield* parseTarget(url, hop)
        while (true) {
          const addresses = yield* addressesOf(target, hop)
          const answer = yield* requestOnce({ target, addresses, accept, userAgent, acceptErrorStatus, maxBytes, hop, ca: internals.ca })
          if (answer._tag === "Body") {
            return {
              status: answer.status,
              headers: answer.headers,
              bytes: answer.bytes,
              contentType: answer.contentType,
              finalUrl: target.url.href,
              filename: filenameOf(answer.contentDisposition, target.url)
            } satisfies FetchedUrl
          }
          if (answer.location === undefined) return yield* FetchFailure.redirectWithoutLocation(hop, answer.status)
          if (hop.redirects >= settings.max_redirects) {
            return yield* FetchFailure.tooManyRedirects(options.param, settings.max_redirects)
          }
          hop = { param: options.param, redirects: hop.redirects + 1 }
          target = yield* parseTarget(answer.location, hop, target.url)
        }
      })

    const fetch = Effect.fn("UrlFetcher.fetch")(function* (url: string, options: FetchOptions) {
      const maxBytes = options.maxBytes ?? settings.max_bytes_mb * 1024 * 1024
      const timeoutMs = options.timeoutMs ?? settings.timeout_ms
      return yield* follow(url, options, maxBytes).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(timeoutMs),
          orElse: () => Effect.fail(FetchFailure.timeout(options.param, timeoutMs))
        })
      )
    })

    const admit = Effect.fn("UrlFetcher.admit")(function* (url: string, param: string) {
      const hop: Hop = { param, redirects: 0 }
      const target = yield* parseTarget(url, hop)
      yield* addressesOf(target, hop)
      return target.url
    })

    return UrlFetcher.of({ fetch, admit })
  }

  /** Reads `fetch` from gateway.yaml. */
  static readonly layer = Layer.effect(UrlFetcher, Effect.map(GatewayConfigFile, ({ config }) => UrlFetcher.make(config.fetch)))

  /** For tests: explicit settings plus the seams in `UrlFetcherInternals`. */
  static readonly layerWith = (settings: FetchSettings, internals: UrlFetcherInternals = {}) =>
    Layer.succeed(UrlFetcher, UrlFetcher.make(settings, internals))
}
