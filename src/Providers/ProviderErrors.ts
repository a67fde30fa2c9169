import { GatewayError, UpstreamFailure } from "../Domain/GatewayError.ts"
import { redactOptional, redactSecrets } from "../Domain/SecretRedaction.ts"

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

/**
 * Every upstream failure is built here, and its message is redacted here: this is where upstream
 * text (error bodies, stream error events, transport errors) enters the gateway, so no client
 * body, log line, span or usage row downstream can hold a provider key.
 */
export const upstreamFailure = (
  provider: string,
  kind: UpstreamFailure["kind"],
  message: string,
  status?: number,
  retryAfter?: number
): GatewayError =>
  new GatewayError({
    reason: new UpstreamFailure({
      message: redactSecrets(message),
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
  const detail = redactOptional(input.message) ?? `HTTP ${status}`
  switch (true) {
    case status === 400 || status === 413 || status === 422:
      return GatewayError.invalid(detail, redactOptional(input.param))
    case status === 401 || status === 403:
      return upstreamFailure(provider, "auth", `The provider '${provider}' rejected the gateway's credentials (HTTP ${status}).`, status)
    case status === 404:
      return upstreamFailure(provider, "rejected", `The provider '${provider}' does not know the configured model (HTTP 404): ${detail}`, status)
    case status === 408:
      return upstreamFailure(provider, "timeout", `The provider '${provider}' timed out (HTTP 408).`, status, retryAfterMs(header))
    case status === 429:
      return upstreamFailure(provider, "rate_limited", `The provider '${provider}' is rate limiting requests: ${detail}`, status, retryAfterMs(header))
    case status === 503 || status === 529:
      return upstreamFailure(provider, "overloaded", `The provider '${provider}' is overloaded (HTTP ${status}).`, status, retryAfterMs(header))
    case status === 409 || status >= 500:
      return upstreamFailure(provider, "server", `The provider '${provider}' failed (HTTP ${status}): ${detail}`, status, retryAfterMs(header))
    default:
      return upstreamFailure(provider, "rejected", `The provider '${provider}' rejected the request (HTTP ${status}): ${detail}`, status)
  }
}

export const connectFailure = (provider: string, cause: string): GatewayError =>
  upstreamFailure(provider, "connect", `Could not reach the provider '${provider}': ${cause}`)

export const timeoutFailure = (provider: string, what: string): GatewayError =>
  upstreamFailure(provider, "timeout", `The provider '${provider}' did not answer in time (${what}).`)

export const badResponse = (provider: string, what: string): GatewayError =>
  upstreamFailure(provider, "bad_response", `The provider '${provider}' sent a response the gateway could not read: ${what}`)

/** A failure the provider reported inside a stream that had already started. */
export const streamFailure = (provider: string, message: string, retryable: boolean): GatewayError =>
  upstreamFailure(provider, retryable ? "server" : "bad_response", `The provider '${provider}' failed mid-stream: ${message}`)
