import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { ApiScope, Principal } from "../Domain/ApiKey.ts"
import { GatewayError, missingScope } from "../Domain/GatewayError.ts"
import { ApiKeys } from "../Services/Accounts/ApiKeys.ts"
import { requestHeader } from "./NodeMessage.ts"
import { noteKey } from "./AccessLogNotes.ts"

/** The caller of the current request, provided by `authenticated`. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("gateway/CurrentPrincipal") {}

const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i

const missingKey = () =>
  GatewayError.unauthenticated(
    "You didn't provide an API key. Send it in the Authorization header as 'Bearer YOUR_KEY'.",
    "missing_api_key"
  )
const malformedHeader = () =>
  GatewayError.unauthenticated("Malformed Authorization header; expected 'Bearer YOUR_KEY'.", "invalid_authorization_header")

/**
 * Resolves the bearer key, checks the route's scope and runs `handler` as that principal.
 * The key itself is never logged or put on a span; only ids are.
 */
const missingEitherKey = () =>
  GatewayError.unauthenticated(
    "You didn't provide an API key. Send it in the x-api-key header, or in the Authorization header as 'Bearer YOUR_KEY'.",
    "missing_api_key"
  )

/**
 * The key of a request: the bearer token, or with `apiKeyHeader` (Anthropic's convention)
 * the `x-api-key` header when no Authorization header was sent.
 */
const secretOf = (request: HttpServerRequest.HttpServerRequest, apiKeyHeader: boolean): string | GatewayError => {
  const header = requestHeader(request, "authorization")
  if (header === undefined || header.trim() === "") {
    if (!apiKeyHeader) return missingKey()
    const key = requestHeader(request, "x-api-key")?.trim()
    return key === undefined || key === "" ? missingEitherKey() : key
  }
  return bearer.exec(header)?.[1] ?? malformedHeader()
}

export const authenticated = <A, E, R>(
  scope: ApiScope,
  handler: Effect.Effect<A, E, R>,
  apiKeyHeader = false
): Effect.Effect<A, E | GatewayError, Exclude<R, CurrentPrincipal> | HttpServerRequest.HttpServerRequest | ApiKeys> =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
    const secret = secretOf(request, apiKeyHeader)
    if (typeof secret !== "string") return Effect.fail(secret)
    return Effect.flatMap(Effect.service(ApiKeys), (keys) =>
      Effect.flatMap(keys.verify(secret), (principal) => {
        noteKey(request.source, principal)
        return Effect.andThen(
          Effect.annotateCurrentSpan({ "gateway.project_id": principal.projectId, "gateway.key_id": principal.keyId }),
          principal.scopes.has(scope)
            ? Effect.provideService(handler, CurrentPrincipal, principal)
            : Effect.fail<E | GatewayError>(
              missingScope(scope, principal.keyId, principal.scopes)
            )
        )
      })
    )
  })
