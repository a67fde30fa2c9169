import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { type ChatErrorType, chatStatusOf, errorShape, type ErrorShapeOptions } from "../Dialects/DialectErrors.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"

export type { Dialect } from "../Dialects/DialectErrors.ts"
export type ErrorType = ChatErrorType

/** The chat mapping from a failure reason to HTTP status and `error.type` (spec part 7); other dialects: `statusIn`. */
export const statusOf = chatStatusOf

export interface ErrorBody {
  readonly error: {
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
  }
}

export type RenderOptions = ErrorShapeOptions

/** The chat-shaped body (`{"error":{...}}`) of a failure. */
export const errorBody = (error: GatewayError, options: RenderOptions): { readonly status: number; readonly body: ErrorBody } => {
  const { status, body } = errorShape(error, { ...options, dialect: "chat" })
  return { status, body: body as ErrorBody }
}

/** The error in the options' dialect (chat by default) with the headers the status implies (Retry-After, Allow). */
export const errorResponse = (error: GatewayError, options: RenderOptions): HttpServerResponse.HttpServerResponse => {
  const { status, body } = errorShape(error, options)
  const headers: Record<string, string> = { "x-request-id": options.requestId }
  const retryAfterMs = error.retryAfterMs
  // Only when waiting can help: a request over a TPM limit has no retryAfterMs and gets none.
  if ((status === 429 || status === 503 || status === 529) && retryAfterMs !== undefined) {
    const ms = Math.max(0, Math.ceil(retryAfterMs))
    headers["retry-after"] = String(Math.max(1, Math.ceil(ms / 1000)))
    headers["retry-after-ms"] = String(ms)
  }
  if (error.reason._tag === "RateLimited" && error.reason.headers !== undefined) Object.assign(headers, error.reason.headers)
  if (error.reason._tag === "MethodNotAllowed") headers["allow"] = error.reason.allow.join(", ")
  // The rest of a stalled body may never come: the connection is not reused.
  if (error.reason._tag === "RequestTimeout") headers["connection"] = "close"
  return HttpServerResponse.jsonUnsafe(body, { status, headers })
}
