import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { ClientAbort } from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as SqlError from "effect/sql/SqlError"
import { GatewayError } from "../Domain/GatewayError.ts"
import * as Ids from "../Domain/Ids.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { isStorageOutage, storageUnavailable } from "../Services/Storage/StorageGuard.ts"
import { type Dialect, errorCodeOf, statusIn } from "../Dialects/DialectErrors.ts"
import { errorResponse } from "./ErrorResponse.ts"
import { noteError } from "./AccessLogNotes.ts"

// Kept on the platform's request object (Node's message), which lives exactly as long as the
// request: the id costs no context entry, and whatever serves the request finds the same one.
// A symbol-keyed property rather than a WeakMap entry: every message takes the same shape
// transition, and a read is a property load instead of an ephemeron-table lookup (which also
// costs the garbage collector per entry).
const requestIdKey = Symbol("gateway/requestId")

interface WithRequestId {
  [requestIdKey]?: string
}

/** The id of a request; sent back as `x-request-id` and written to its logs and usage. */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const source = request.source as WithRequestId
  return source[requestIdKey] ??= Ids.requestId()
}

/** The id a request was given, if any (by Node's request object); for the access log. */
export const knownRequestId = (source: object): string | undefined => (source as WithRequestId)[requestIdKey]

/** The id of the request being served. */
export const currentRequestId: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  Effect.service(HttpServerRequest.HttpServerRequest),
  requestIdOf
)

/**
 * The error a failed request answers with: its typed error, or for a defect a 500, except a
 * database outage that surfaced as a defect (a store call outside the request guards), which
 * is a 503 like every other outage. `undefined` for an interruption: nothing was answered.
 */
export const failureOf = (cause: Cause.Cause<GatewayError>, retryAfterMs: number): GatewayError | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some") return failure.value
  const defect = Cause.findDefect(cause)
  if (defect._tag === "Success" && SqlError.isSqlError(defect.success) && isStorageOutage(defect.success)) {
    return storageUnavailable(retryAfterMs)
  }
  return GatewayError.internal("unhandled defect")
}

/**
 * The status a failed request answers with (see `failureOf`). An interruption answers nothing
 * of ours: 499 when the client went away, 503 when the server stopped it (the platform answers
 * a request cut by the shutdown grace with an empty 503).
 */
export const statusOfFailure = (cause: Cause.Cause<GatewayError>, retryAfterMs: number, dialect: Dialect = "chat"): number => {
  const error = failureOf(cause, retryAfterMs)
  if (error !== undefined) return statusIn(dialect, error.reason).status
  return cause.reasons.some((reason) => reason._tag === "Interrupt" && reason.annotations.has(ClientAbort.key)) ? 499 : 503
}

const defaultRetryAfterMs = 5_000
const retryAfterOf = (fiber: { readonly context: Context.Context<never> }): number => {
  const file = Context.getOrUndefined(fiber.context, GatewayConfigFile)
  return file === undefined ? defaultRetryAfterMs : file.config.resilience.retry_after_seconds * 1000
}

export interface HandleOptions {
  readonly filesEndpoint?: boolean
  /** The error shape of the endpoint's dialect (chat by default). */
  readonly dialect?: Dialect
}

/**
 * Wraps every route so that the route never fails: typed errors become the spec's envelope,
 * defects become a 500 that names the request id (and are logged with their cause), and every
 * response carries `x-request-id`. A client disconnect (interruption) is passed through so the
 * server can tear the request down.
 */
export const handle = <R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>,
  options: HandleOptions = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiber((fiber) => {
    const requestId = requestIdOf(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest))
    const render = {
      requestId,
      ...(options.filesEndpoint === true ? { filesEndpoint: true } : {}),
      ...(options.dialect === undefined ? {} : { dialect: options.dialect })
    }
    return effect.pipe(
      // Routes that already set it (the model endpoints) are not copied again.
      Effect.map((response) =>
        response.headers["x-request-id"] === requestId ? response : HttpServerResponse.setHeader(response, "x-request-id", requestId)
      ),
      Effect.catchCause((cause) => {
        const error = failureOf(cause, retryAfterOf(fiber))
        if (error === undefined) return Effect.failCause(cause as Cause.Cause<never>)
        const response = errorResponse(error, render)
        noteError(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).source, errorCodeOf(error.reason, options.dialect))
        if (Cause.findErrorOption(cause)._tag === "Some") return Effect.succeed(response)
        return Effect.as(Effect.logError(error.reason._tag === "Internal" ? "unhandled defect" : "database unreachable", cause), response)
      })
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
  })
