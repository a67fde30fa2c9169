import { Context, Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import type { ApiScope, Principal } from "../Domain/ApiKey.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import { ApiKeys } from "../Services/ApiKeys.ts"

/** The caller of the current request, provided by `authenticated`. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("gateway/CurrentPrincipal") {}

const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i

/**
 * Resolves the bearer key, checks the route's scope and runs `handler` as that principal.
 * The key itself is never logged or put on a span; only ids are.
 */
export const authenticated = <A, E, R>(scope: ApiScope, handler: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers["authorization"]
    if (header === undefined || header.trim() === "") {
      return yield* GatewayError.unauthenticated(
        "You didn't provide an API key. Send it in the Authorization header as 'Bearer YOUR_KEY'.",
        "missing_api_key"
      )
    }
    const secret = bearer.exec(header)?.[1]
    if (secret === undefined) {
      return yield* GatewayError.unauthenticated(
        "Malformed Authorization header; expected 'Bearer YOUR_KEY'.",
        "invalid_authorization_header"
      )
    }
    const principal = yield* (yield* ApiKeys).verify(secret)
    yield* Effect.annotateCurrentSpan({ "gateway.project_id": principal.projectId, "gateway.key_id": principal.keyId })
    if (!principal.scopes.has(scope)) {
      return yield* GatewayError.forbidden(`This API key does not have the '${scope}' scope required by this endpoint.`, "missing_scope")
    }
    return yield* Effect.provideService(handler, CurrentPrincipal, principal)
  }).pipe(Effect.annotateLogs("scope", scope))
