import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { GatewayError, UpstreamFailure } from "../../../Domain/GatewayError.ts"
import type { SearchSettings } from "../../../Domain/ToolsSettings.ts"
import { retryAfterMs } from "../../../Providers/ProviderErrors.ts"
import type { SearchHit, SearchParameters } from "../SearchParameters.ts"
import type { SearchBackend } from "./SearchBackend.ts"
import { trimEndChars } from "../../../Domain/TrimChars.ts"

/** A search answer is a page of snippets; anything larger is not one. */
const maxAnswerBytes = 5 * 1024 * 1024

const failure = (provider: string, kind: UpstreamFailure["kind"], message: string, status?: number, retryAfter?: number) =>
  new GatewayError({
    reason: new UpstreamFailure({
      message,
      provider,
      kind,
      ...(status === undefined ? {} : { status }),
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter })
    })
  })

/** The body as text, abandoned past `maxAnswerBytes`. */
const readCapped = async (response: Response, signal: AbortSignal): Promise<string | undefined> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  // Interruption (the timeout) cancels the body too, not only the wait for headers.
  signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true })
  const chunks: Array<Uint8Array> = []
  let total = 0
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > maxAnswerBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

export type SearchClient = (query: SearchParameters) => Effect.Effect<ReadonlyArray<SearchHit>, GatewayError>

/**
 * Calls the configured back-end: one attempt, bounded by `tools.search.timeout_ms`. The
 * back-end's address is the operator's, not a client's, so it does not go through the
 * guarded fetcher (a SearXNG instance usually lives on a private network); redirects are
 * refused so the key is never sent anywhere else. Failures are upstream errors (502/503/504)
 * that never carry the key or the back-end's own words.
 */
export const makeSearchClient = (backend: SearchBackend, settings: SearchSettings, apiKey: string | undefined): SearchClient => {
  const baseUrl = trimEndChars(settings.base_url ?? backend.defaultBaseUrl ?? "", "/")
  const provider = `search:${backend.kind}`
  const name = `The search back-end (${backend.kind})`

  const call = (query: SearchParameters) =>
    Effect.gen(function* () {
      const request = backend.request(query, { baseUrl, apiKey, now: yield* Clock.currentTimeMillis })
      const response = yield* Effect.tryPromise({
        try: (signal) =>
          fetch(request.url, {
            method: request.method,
            headers: request.headers,
            ...(request.body === undefined ? {} : { body: request.body }),
            redirect: "error",
            signal
          }),
        catch: () => failure(provider, "connect", `${name} could not be reached.`)
      })
      const text = yield* Effect.tryPromise({
        try: (signal) => readCapped(response, signal),
        catch: () => failure(provider, "bad_response", `${name} broke off its answer.`, response.status)
      })
      const status = response.status
      if (status === 401 || status === 403) return yield* failure(provider, "auth", `${name} refused the gateway's credentials (${status}).`, status)
      if (status === 429) {
        const wait = retryAfterMs((header) => response.headers.get(header) ?? undefined)
        return yield* failure(provider, "rate_limited", `${name} is throttling the gateway (429).`, status, wait)
      }
      if (status >= 500) return yield* failure(provider, "server", `${name} failed (${status}).`, status)
      if (status < 200 || status > 299) return yield* failure(provider, "rejected", `${name} rejected the query (${status}).`, status)
      if (text === undefined) return yield* failure(provider, "bad_response", `${name} answered with more than 5 MB.`, status)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return yield* failure(provider, "bad_response", `${name} answered with something other than JSON.`, status)
      }
      const hits = backend.decode(body)
      if (hits === undefined) return yield* failure(provider, "bad_response", `${name} answered in an unexpected shape.`, status)
      return hits.slice(0, query.limit)
    })

  return (query) =>
    call(query).pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(settings.timeout_ms),
        orElse: () => Effect.fail(failure(provider, "timeout", `${name} did not answer within ${settings.timeout_ms} ms.`))
      }),
      Effect.withSpan("SearchClient.search", { attributes: { "search.backend": backend.kind } })
    )
}
