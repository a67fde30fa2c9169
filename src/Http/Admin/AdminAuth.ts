import { createHash, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { consoleSessions, sessionRefusal } from "../Console/ConsoleSession.ts"
import { handle } from "../Handler.ts"

/**
 * The outermost admin middleware: the bearer token must be GATEWAY_ADMIN_TOKEN. It runs
 * before anything reads the body, so an unauthenticated caller learns nothing about payloads.
 */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth>()("gateway/AdminAuth", {
  security: { adminToken: HttpApiSecurity.bearer }
}) {}

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/** Hashing first gives equal lengths, so the comparison takes the same time for every guess. */
export const tokenMatcher = (token: Redacted.Redacted<string>) => {
  const expected = sha256(Redacted.value(token))
  return (given: string): boolean => timingSafeEqual(sha256(given), expected)
}

/** Why `credential` (the bearer value, empty when absent) is refused, or undefined when it is the token. */
export const refusal = (
  matches: (given: string) => boolean,
  credential: Redacted.Redacted<string>
): GatewayError | undefined => {
  const given = Redacted.value(credential)
  if (given === "") {
    return GatewayError.unauthenticated(
      "You didn't provide the admin token. Send it in the Authorization header as 'Bearer GATEWAY_ADMIN_TOKEN'.",
      "missing_admin_token"
    )
  }
  return matches(given) ? undefined : GatewayError.unauthenticated("Incorrect admin token provided.", "invalid_admin_token")
}

/**
 * The bearer token, or without one the console's session cookie (and its CSRF token for a
 * change): undefined when the request is admitted, otherwise why not.
 */
export const adminRefusal = (token: Redacted.Redacted<string>) => {
  const matches = tokenMatcher(token)
  const sessions = consoleSessions(token)
  return (credential: Redacted.Redacted<string>): Effect.Effect<GatewayError | undefined, never, HttpServerRequest.HttpServerRequest> =>
    Redacted.value(credential) !== ""
      ? Effect.succeed(refusal(matches, credential))
      : Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), (request) => sessionRefusal(sessions, request, Date.now()))
}

export const adminAuthLayer = (token: Redacted.Redacted<string>): Layer.Layer<AdminAuth> => {
  const refusalOf = adminRefusal(token)
  return Layer.succeed(AdminAuth, {
    adminToken: (httpEffect, { credential }) =>
      Effect.flatMap(refusalOf(credential), (refused) => (refused === undefined ? httpEffect : handle(Effect.fail(refused))))
  })
}
