import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { ApiScope, Principal } from "../Domain/ApiKey.ts"
import type { GatewayError, GatewayErrorReason } from "../Domain/GatewayError.ts"
import type { UsageEndpoint, UsageError } from "../Domain/UsageEvent.ts"
import { openMeter, type RequestMeter } from "../Services/Usage/UsageMeter.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { statusOf } from "./ErrorResponse.ts"
import { requestIdOf } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"

/** The error as the usage row records it: the client's `error.type` and `code`, and a provider failure's kind. */
const usageErrorOf = (type: string, reason: GatewayErrorReason): UsageError => ({
  type,
  ...("code" in reason && reason.code !== undefined ? { code: reason.code } : {}),
  ...(reason._tag === "UpstreamFailure" ? { kind: reason.kind } : {})
})

/**
 * A model endpoint with a JSON body: the key is checked for `scope`, a usage meter is opened
 * (written when the request ends, whatever happens), the body is decoded, and the status of a
 * failure is put on the meter. Written as a chain rather than a generator: this runs on every
 * request, and each step of a generator costs an iterator round trip.
 */
export const meteredEndpoint = <A extends { readonly model: string }, R>(
  scope: ApiScope,
  endpoint: UsageEndpoint,
  decode: (body: Record<string, unknown>) => Effect.Effect<A, GatewayError>,
  respond: (request: A, meter: RequestMeter, principal: Principal) => Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>
) =>
  authenticated(
    scope,
    Effect.flatMap(Effect.context<CurrentPrincipal | HttpServerRequest.HttpServerRequest>(), (context) => {
      const principal = Context.get(context, CurrentPrincipal)
      const requestId = requestIdOf(Context.get(context, HttpServerRequest.HttpServerRequest))
      return Effect.flatMap(openMeter({ principal, endpoint, requestId }), (meter) =>
        readJsonObject.pipe(
          Effect.flatMap(decode),
          Effect.flatMap((request) => {
            meter.requestedModel = request.model
            return respond(request, meter, principal)
          }),
          Effect.tapError((error) =>
            Effect.sync(() => {
              const { status, type } = statusOf(error.reason)
              meter.status = status
              meter.error = usageErrorOf(type, error.reason)
            })
          )
        ))
    })
  )
