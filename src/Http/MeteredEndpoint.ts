import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { ApiScope, Principal } from "../Domain/ApiKey.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { UsageEndpoint } from "../Domain/UsageEvent.ts"
import { openMeter, type RequestMeter } from "../Services/Usage/UsageMeter.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { requestIdOf, statusOfFailure } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"

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
    Effect.flatMap(Effect.context<CurrentPrincipal | HttpServerRequest.HttpServerRequest | GatewayConfigFile>(), (context) => {
      const principal = Context.get(context, CurrentPrincipal)
      const retryAfterMs = Context.get(context, GatewayConfigFile).config.resilience.retry_after_seconds * 1000
      const requestId = requestIdOf(Context.get(context, HttpServerRequest.HttpServerRequest))
      return Effect.flatMap(openMeter({ principal, endpoint, requestId }), (meter) =>
        readJsonObject.pipe(
          Effect.flatMap(decode),
          Effect.flatMap((request) => {
            meter.requestedModel = request.model
            return respond(request, meter, principal)
          }),
          // The status the client is answered with, defects included (see `Handler.failureOf`),
          // so the usage row never claims a status the client did not get.
          Effect.tapCause((cause) =>
            Effect.sync(() => {
              meter.status = statusOfFailure(cause, retryAfterMs)
            })
          )
        ))
    })
  )
