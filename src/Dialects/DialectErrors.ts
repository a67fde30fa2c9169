import type { GatewayError, GatewayErrorReason } from "../Domain/GatewayError.ts"

/**
 * The one place a failure becomes what a client of each dialect reads: its HTTP status, its
 * `error.type` and the body's shape. Chat completions (and the OpenAI-style endpoints) answer
 * `{"error":{message,type,param,code}}` (spec part 7); Messages answers Anthropic's
 * `{"type":"error","error":{type,message},"request_id"}` with Anthropic's types and statuses, so
 * its SDK raises the same exception classes it raises against Anthropic itself.
 */
export type Dialect = "chat" | "responses" | "messages"

export type ChatErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "internal_server_error"
  | "upstream_error"

/** The chat mapping (spec part 7): reason -> status and `error.type`. */
export const chatStatusOf = (reason: GatewayErrorReason): { readonly status: number; readonly type: ChatErrorType } => {
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

/**
 * Anthropic's statuses and types. Where Anthropic has a status of its own for the meaning it
 * is used (529 overloaded, 504 timeout, 500 api_error); a throttled or unreachable upstream and
 * our own unavailable storage are "overloaded" (retry later), any other upstream failure an
 * `api_error`. Other 4xx keep their status with `invalid_request_error`, as Anthropic does.
 * @see https://platform.claude.com/docs/en/api/errors
 */
export const messagesStatusOf = (reason: GatewayErrorReason): { readonly status: number; readonly type: string } => {
  switch (reason._tag) {
    case "InvalidRequest":
    case "MethodNotAllowed":
    case "UnsupportedMediaType":
      return { status: chatStatusOf(reason).status, type: "invalid_request_error" }
    case "Unauthenticated":
      return { status: 401, type: "authentication_error" }
    case "PaymentRequired":
      return { status: 402, type: "billing_error" }
    case "PermissionDenied":
      return { status: 403, type: "permission_error" }
    case "NotFound":
      return { status: 404, type: "not_found_error" }
    case "PayloadTooLarge":
      return { status: 413, type: "request_too_large" }
    case "RateLimited":
      return { status: 429, type: "rate_limit_error" }
    case "RequestTimeout":
      return { status: 408, type: "timeout_error" }
    case "UpstreamFailure":
      if (reason.kind === "overloaded" || reason.kind === "rate_limited" || reason.kind === "connect") {
        return { status: 529, type: "overloaded_error" }
      }
      return reason.kind === "timeout" ? { status: 504, type: "timeout_error" } : { status: 500, type: "api_error" }
    case "ServiceUnavailable":
      return { status: 529, type: "overloaded_error" }
    case "Internal":
      return { status: 500, type: "api_error" }
  }
}

/** Status and `error.type` of a failure in a dialect. */
export const statusIn = (dialect: Dialect, reason: GatewayErrorReason): { readonly status: number; readonly type: string } =>
  dialect === "messages" ? messagesStatusOf(reason) : chatStatusOf(reason)

/** What the access log records of an error answer: its `code`, else its `error.type` in the dialect. */
export const errorCodeOf = (reason: GatewayErrorReason, dialect: Dialect = "chat"): string =>
  "code" in reason && reason.code !== undefined ? reason.code : statusIn(dialect, reason).type

export interface ErrorShapeOptions {
  readonly requestId: string
  readonly dialect?: Dialect
  /** The files endpoints report every non-500 error as `invalid_request_error` (spec part 7). */
  readonly filesEndpoint?: boolean
}

/** The text a client reads; a defect's cause stays in the logs, the client gets the request id. */
const messageOf = (reason: GatewayErrorReason, requestId: string): string =>
  reason._tag === "Internal"
    ? `The server had an error while processing your request. Please retry; if it persists, report request id ${requestId}.`
    : reason.message

/** The status, type and body of a failure, in the dialect of the endpoint that failed. */
export const errorShape = (
  error: GatewayError,
  options: ErrorShapeOptions
): { readonly status: number; readonly type: string; readonly body: object } => {
  const reason = error.reason
  const message = messageOf(reason, options.requestId)
  if (options.dialect === "messages") {
    const { status, type } = messagesStatusOf(reason)
    return { status, type, body: { type: "error", error: { type, message }, request_id: options.requestId } }
  }
  const { status, type: chatType } = chatStatusOf(reason)
  const type = options.filesEndpoint === true && status !== 500 ? "invalid_request_error" : chatType
  return {
    status,
    type,
    body: {
      error: {
        message,
        type,
        param: "param" in reason && reason.param !== undefined ? reason.param : null,
        code: "code" in reason && reason.code !== undefined ? reason.code : null
      }
    }
  }
}
