import { createHash, timingSafeEqual } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { ConsoleSessionStore } from "../../Services/Accounts/ConsoleSessionStore.ts"
import { consoleSessions, sessionRefusal } from "../Console/ConsoleSession.ts"
import { handle } from "../Handler.ts"
import { clientOf, FailedAuthThrottle } from "./FailedAuthThrottle.ts"

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

/** What checks an admin request: the token, the console's sessions, and the failed-attempt throttle. */
export const adminGate = Effect.gen(function* () {
  const throttle = yield* FailedAuthThrottle
  const store = yield* ConsoleSessionStore
  return { throttle, store }
})

/**
 * The bearer token, or without one the console's session cookie (and its CSRF token for a
 * change): undefined when the request is admitted, otherwise why not. A client that sent too many
 * wrong tokens in the last minute is refused before its token is compared; a wrong token or a
 * forged cookie counts as one more.
 */
export const adminRefusal = (token: Redacted.Redacted<string>, gate: Effect.Success<typeof adminGate>) => {
  const matches = tokenMatcher(token)
  const sessions = consoleSessions(token)
  const { throttle, store } = gate
  return (credential: Redacted.Redacted<string>): Effect.Effect<GatewayError | undefined, GatewayError, HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
      const now = Date.now()
      const client = clientOf(request)
      // A signed cookie cannot be guessed, so a valid session is never locked out by others'
      // failures from the same address; a forged one still counts as a failure.
      if (Redacted.value(credential) === "") return sessionRefusal(sessions, store, request, now, () => throttle.failed(client, now))
      const throttled = throttle.refusal(client, now)
      if (throttled !== undefined) return Effect.succeed(throttled)
      const refused = refusal(matches, credential)
      if (refused?.reason._tag === "Unauthenticated" && refused.reason.code === "invalid_admin_token") throttle.failed(client, now)
      return Effect.succeed(refused)
    })
}

export const adminAuthLayer = (token: Redacted.Redacted<string>): Layer.Layer<AdminAuth, never, FailedAuthThrottle | ConsoleSessionStore> =>
  Layer.effect(
    AdminAuth,
    Effect.map(adminGate, (gate) => {
      const refusalOf = adminRefusal(token, gate)
      return {
        adminToken: (httpEffect, { credential }) =>
          Effect.flatMap(Effect.result(refusalOf(credential)), (checked) => {
            const refused = checked._tag === "Success" ? checked.success : checked.failure
            return refused === undefined ? httpEffect : handle(Effect.fail(refused))
          })
      }
    })
  )
