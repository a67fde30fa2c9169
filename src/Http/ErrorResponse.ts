import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { GatewayError, GatewayErrorReason } from "../Domain/GatewayError.ts"

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "internal_server_error"
  | "upstream_error"

/** The single mapping from a failure reason to HTTP status and `error.type` (spec part 7). */
export const statusOf = (reason: GatewayErrorReason): { readonly status: number; readonly type: ErrorType } => {
  switch (reason._tag) {
    case "InvalidRequest":
      return { status: 400, type: "invalid_request_error" }
    case "Unauthenticated":
      return { status: 401, type: "authentication_error" }
    case "PaymentRequired":
      return { status: 402, type: "billing_error" }
    case "PermissionDenied":
      return { status: 403, type: "permission_error" }
    case "NotFound":
      return { status: 404, type: "not_found_error" }
    case "MethodNotAllowed":
      return { status: 405, type: "invalid_request_error" }
    case "PayloadTooLarge":
      return { status: 413, type: "invalid_request_error" }
    case "UnsupportedMediaType":
      return { status: 415, type: "invalid_request_error" }
    case "RateLimited":
      return { status: 429, type: "rate_limit_error" }
    case "UpstreamFailure":
      // A provider that is down or throttling everyone is "unavailable"; anything else is a bad gateway.
      return {
        status: reason.kind === "overloaded" || reason.kind === "rate_limited" || reason.kind === "connect" ? 503 : reason.kind === "timeout" ? 504 : 502,
        type: "upstream_error"
      }
    case "RequestTimeout":
      return { status: 408, type: "invalid_request_error" }
    // The spec's only type for a 503 (part 7); `code` says which dependency is down.
    case "ServiceUnavailable":
      return { status: 503, type: "upstream_error" }
    case "Internal":
      return { status: 500, type: "internal_server_error" }
  }
}

export interface ErrorBody {
  readonly error: {
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
  }
}

export interface RenderOptions {
  readonly requestId: string
  /** The files endpoints report every non-500 error as `invalid_request_error` (spec part 7). */
  readonly filesEndpoint?: boolean
}

export const errorBody = (error: GatewayError, options: RenderOptions): { readonly status: number; readonly body: ErrorBody } => {
  const reason = error.reason
  const { status, type } = statusOf(reason)
  const message =
    reason._tag === "Internal"
      ? `The server had an error while processing your request. Please retry; if it persists, report request id ${options.requestId}.`
      : reason.message
  return {
    status,
    body: {
      error: {
        message,
        type: options.filesEndpoint === true && status !== 500 ? "invalid_request_error" : type,
        param: "param" in reason && reason.param !== undefined ? reason.param : null,
        code: "code" in reason && reason.code !== undefined ? reason.code : null
      }
    }
  }
}

/** The `{"error":{...}}` envelope with the headers the status implies (Retry-After, Allow). */
export const errorResponse = (error: GatewayError, options: RenderOptions): HttpServerResponse.HttpServerResponse => {
  const { status, body } = errorBody(error, options)
  const headers: Record<string, string> = { "x-request-id": options.requestId }
  const retryAfterMs = error.retryAfterMs
  if (status === 429 || (status === 503 && retryAfterMs !== undefined)) {
    const ms = Math.max(0, Math.ceil(retryAfterMs ?? 1000))
    headers["retry-after"] = String(Math.max(1, Math.ceil(ms / 1000)))
    headers["retry-after-ms"] = String(ms)
  }
  if (error.reason._tag === "RateLimited" && error.reason.headers !== undefined) Object.assign(headers, error.reason.headers)
  if (error.reason._tag === "MethodNotAllowed") headers["allow"] = error.reason.allow.join(", ")
  // The rest of a stalled body may never come: the connection is not reused.
  if (error.reason._tag === "RequestTimeout") headers["connection"] = "close"
  return HttpServerResponse.jsonUnsafe(body, { status, headers })
}
