import { GatewayError, UpstreamFailure } from "../Domain/GatewayError.ts"

type HeaderLookup = (name: string) => string | undefined

/** `retry-after-ms`, else `retry-after` as seconds or an HTTP date. */
export const retryAfterMs = (header: HeaderLookup, now: number = Date.now()): number | undefined => {
  const ms = header("retry-after-ms")
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = header("retry-after")
  if (value === undefined || value.trim() === "") return undefined
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const upstream = (
  provider: string,
  kind: UpstreamFailure["kind"],
  message: string,
  status?: number,
  retryAfter?: number
): GatewayError =>
  new GatewayError({
    reason: new UpstreamFailure({
      message,
      provider,
      kind,
      ...(status === undefined ? {} : { status }),
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter })
    })
  })

/**
 * The status-based part of every provider's error decoding. A 400-class rejection of the
 * request content is the client's mistake and is reported as such (with the provider's own
 * words); credentials, missing upstream models and server trouble are the gateway's side.
 */
export const errorFromStatus = (input: {
  readonly provider: string
  readonly status: number
  readonly message: string | undefined
  readonly param?: string | undefined
  readonly header: HeaderLookup
}): GatewayError => {
  const { provider, status, header } = input
  const detail = input.message ?? `HTTP ${status}`
  switch (true) {
    case status === 400 || status === 413 || status === 422:
      return GatewayError.invalid(detail, input.param)
    case status === 401 || status === 403:
      return upstream(provider, "auth", `The provider '${provider}' rejected the gateway's credentials (HTTP ${status}).`, status)
    case status === 404:
      return upstream(provider, "rejected", `The provider '${provider}' does not know the configured model (HTTP 404): ${detail}`, status)
    case status === 408:
      return upstream(provider, "timeout", `The provider '${provider}' timed out (HTTP 408).`, status, retryAfterMs(header))
    case status === 429:
      return upstream(provider, "rate_limited", `The provider '${provider}' is rate limiting requests: ${detail}`, status, retryAfterMs(header))
    case status === 503 || status === 529:
      return upstream(provider, "overloaded", `The provider '${provider}' is overloaded (HTTP ${status}).`, status, retryAfterMs(header))
    case status === 409 || status >= 500:
      return upstream(provider, "server", `The provider '${provider}' failed (HTTP ${status}): ${detail}`, status, retryAfterMs(header))
    default:
      return upstream(provider, "rejected", `The provider '${provider}' rejected the request (HTTP ${status}): ${detail}`, status)
  }
}

export const connectFailure = (provider: string, cause: string): GatewayError =>
  upstream(provider, "connect", `Could not reach the provider '${provider}': ${cause}`)

export const timeoutFailure = (provider: string, what: string): GatewayError =>
  upstream(provider, "timeout", `The provider '${provider}' did not answer in time (${what}).`)

export const badResponse = (provider: string, what: string): GatewayError =>
  upstream(provider, "bad_response", `The provider '${provider}' sent a response the gateway could not read: ${what}`)

/** A failure the provider reported inside a stream that had already started. */
export const streamFailure = (provider: string, message: string, retryable: boolean): GatewayError =>
  upstream(provider, retryable ? "server" : "bad_response", `The provider '${provider}' failed mid-stream: ${message}`)
