import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { AppConfig } from "../../Services/Config/AppConfig.ts"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import { adminGate, adminRefusal, tokenMatcher } from "../Admin/AdminAuth.ts"
import { clientOf } from "../Admin/FailedAuthThrottle.ts"
import { handle } from "../Handler.ts"
import { signInCap } from "../BodyLimits.ts"
import { readJsonObject } from "../JsonBody.ts"
import type { RouteSignature } from "../Route.ts"
import { type ConsoleAsset, loadConsoleAssets } from "./ConsoleAssets.ts"
import { consoleSessions, cookieHeader, sessionCookie, sessionRefusal } from "./ConsoleSession.ts"
import { ConsoleDisabledLive } from "../Admin/AdminDisabled.ts"

// The page loads only its own files and talks only to this origin; nothing may frame it.
const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache"
}

const serveAsset = (asset: ConsoleAsset | undefined, path: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (asset === undefined) return yield* GatewayError.notFound(`Unknown request URL: GET ${path}.`, undefined, "unknown_url")
    if (request.headers["if-none-match"] === asset.etag) {
      return HttpServerResponse.empty({ status: 304, headers: { etag: asset.etag, ...securityHeaders } })
    }
    return HttpServerResponse.uint8Array(asset.body, {
      contentType: asset.contentType,
      headers: { etag: asset.etag, ...securityHeaders }
    })
  })

const consoleLayer = (token: Redacted.Redacted<string>) => Layer.unwrap(Effect.map(adminGate, (gate) => {
  const assets = loadConsoleAssets()
  const sessions = consoleSessions(token)
  const matches = tokenMatcher(token)
  const { throttle, store } = gate
  const adminRefusalOf = adminRefusal(token, gate)
  const index = assets.get("index.html")

  const signIn = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const client = clientOf(request)
    // A client that guessed too often is refused before its body is even read.
    const throttled = throttle.refusal(client, Date.now())
    if (throttled !== undefined) return yield* throttled
    // Parsed only within a few KB: an unauthenticated caller cannot make the gateway read more.
    const body = yield* readJsonObject(() => signInCap)
    const given = body["token"]
    if (typeof given !== "string" || given === "") return yield* GatewayError.invalid("Provide the admin token in 'token'.", "token")
    if (!matches(given)) {
      throttle.failed(client, Date.now())
      return yield* GatewayError.unauthenticated("Incorrect admin token provided.", "invalid_admin_token")
    }
    const now = Date.now()
    const session = sessions.issue(now)
    yield* store.open(session.id, now, session.expiresAt * 1000)
    return HttpServerResponse.jsonUnsafe(
      { object: "console_session", csrf_token: session.csrf, expires_at: session.expiresAt },
      { headers: { "set-cookie": cookieHeader(request, session.value, session.expiresAt - Math.floor(now / 1000)), "cache-control": "no-store" } }
    )
  })

  /** The live session of the request's cookie, or the refusal (a forged cookie counts as a failed attempt). */
  const liveSession = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const now = Date.now()
    const client = clientOf(request)
    const refused = yield* sessionRefusal(sessions, store, request, now, () => throttle.failed(client, now))
    if (refused !== undefined) return yield* refused
    const value = request.cookies[sessionCookie] ?? ""
    return { request, value, id: sessions.verify(value, now) ?? "" }
  })

  // The page asks for its CSRF token on load; only the cookie's holder gets it.
  const current = Effect.map(liveSession, ({ id, value }) =>
    HttpServerResponse.jsonUnsafe(
      { object: "console_session", csrf_token: sessions.csrfOf(id), expires_at: Number(value.split(".")[1]) },
      { headers: { "cache-control": "no-store" } }
    ))

  // Ends this session on the server (every instance refuses its cookie from now on) and clears the cookie.
  const signOut = Effect.gen(function* () {
    const { request, id } = yield* liveSession
    yield* store.end(id, Date.now())
    return HttpServerResponse.empty({ status: 204, headers: { "set-cookie": cookieHeader(request, "", 0) } })
  })

  // Ends every console session, this one included: with a session and its CSRF token, or the admin token.
  const signOutEverywhere = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const refused = yield* adminRefusalOf(yield* HttpApiBuilder.securityDecode(HttpApiSecurity.bearer))
    if (refused !== undefined) return yield* refused
    const ended = yield* store.endAll(Date.now())
    return HttpServerResponse.jsonUnsafe(
      { object: "console_sessions.ended", ended },
      { headers: { "set-cookie": cookieHeader(request, "", 0), "cache-control": "no-store" } }
    )
  })

  const asset = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = request.url.split("?", 1)[0] ?? ""
    const name = path.replace(/^\/console\/?/, "")
    return yield* serveAsset(name === "" ? index : assets.get(name), path)
  })

  return Layer.mergeAll(
    // "/console/*" serves "/console" too.
    HttpRouter.add("GET", "/console/*", handle(asset)),
    HttpRouter.add("POST", "/console/session", handle(signIn)),
    HttpRouter.add("GET", "/console/session", handle(current)),
    HttpRouter.add("DELETE", "/console/session", handle(signOut)),
    HttpRouter.add("DELETE", "/console/sessions", handle(signOutEverywhere))
  )
}))

/** The console at `/console` when GATEWAY_ADMIN_TOKEN is set (it signs in with that token). */
export const ConsoleRoutesLive = Layer.unwrap(
  Effect.map(AppConfig, (app) => (app.adminToken === undefined ? ConsoleDisabledLive : consoleLayer(app.adminToken)))
)

export const consoleRouteSignatures: Effect.Effect<ReadonlyArray<RouteSignature>, never, AppConfig> = Effect.map(
  AppConfig,
  (app): ReadonlyArray<RouteSignature> =>
    app.adminToken === undefined
      ? []
      : [
        { method: "GET", path: "/console/*" },
        { method: "POST", path: "/console/session" },
        { method: "DELETE", path: "/console/session" },
        { method: "DELETE", path: "/console/sessions" }
      ]
)
