import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { GatewayError } from "../Domain/GatewayError.ts"
import * as Ids from "../Domain/Ids.ts"
import { errorResponse } from "./ErrorResponse.ts"

// Keyed by the platform's request object (Node's message), which lives exactly as long as the
// request: the id costs no context entry, and whatever serves the request finds the same one.
const requestIds = new WeakMap<object, string>()

/** The id of a request; sent back as `x-request-id` and written to its logs and usage. */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest): string => {
  let id = requestIds.get(request.source)
  if (id === undefined) {
    id = Ids.requestId()
    requestIds.set(request.source, id)
  }
  return id
}

/** The id of the request being served. */
export const currentRequestId: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  Effect.service(HttpServerRequest.HttpServerRequest),
  requestIdOf
)

export interface HandleOptions {
  readonly filesEndpoint?: boolean
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
    const render = { requestId, ...(options.filesEndpoint === true ? { filesEndpoint: true } : {}) }
    return effect.pipe(
      // Routes that already set it (the model endpoints) are not copied again.
      Effect.map((response) =>
        response.headers["x-request-id"] === requestId ? response : HttpServerResponse.setHeader(response, "x-request-id", requestId)
      ),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.findErrorOption(cause)
        if (failure._tag === "Some") return Effect.succeed(errorResponse(failure.value, render))
        return Effect.logError("unhandled defect", cause).pipe(
          Effect.as(errorResponse(GatewayError.internal("unhandled defect"), render))
        )
      })
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
  })
