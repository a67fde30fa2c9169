import { Cause, Context, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { GatewayError } from "../Domain/GatewayError.ts"
import * as Ids from "../Domain/Ids.ts"
import { errorResponse } from "./ErrorResponse.ts"

/** The id of the request being served; sent back as `x-request-id` and written to logs and usage. */
export const CurrentRequestId = Context.Reference<string>("gateway/CurrentRequestId", {
  defaultValue: () => "req_unknown"
})

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
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.suspend(() => {
    const requestId = Ids.requestId()
    const render = { requestId, ...(options.filesEndpoint === true ? { filesEndpoint: true } : {}) }
    return effect.pipe(
      Effect.map((response) => HttpServerResponse.setHeader(response, "x-request-id", requestId)),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.findErrorOption(cause)
        if (failure._tag === "Some") return Effect.succeed(errorResponse(failure.value, render))
        return Effect.logError("unhandled defect", cause).pipe(
          Effect.as(errorResponse(GatewayError.internal("unhandled defect"), render))
        )
      }),
      Effect.provideService(CurrentRequestId, requestId),
      Effect.annotateLogs("request_id", requestId)
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
  })
