import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { TLSSocket } from "node:tls"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ConsoleSessionStoreShape } from "../../Services/Accounts/ConsoleSessionStore.ts"

/**
 * The console's sign-in session. The cookie holds an expiry and a random id signed with a key
 * derived from GATEWAY_ADMIN_TOKEN (changing the token signs every console out), so a forged or
 * altered cookie is refused without a database call; the id is also a row of
 * `ConsoleSessionStore`, which is what sign-out ends, on every instance. The CSRF token is another
 * signature of the same id, handed to the page by `GET /console/session` and required in
 * `x-csrf-token` on every change.
 */

export const sessionCookie = "gateway_console"
export const csrfHeader = "x-csrf-token"
export const sessionSeconds = 12 * 60 * 60

const base64url = (bytes: Buffer) => bytes.toString("base64url")

export interface ConsoleSessions {
  /** A new session: its id, the cookie's value, its CSRF token and its expiry (unix seconds). */
  readonly issue: (nowMs: number) => { readonly id: string; readonly value: string; readonly csrf: string; readonly expiresAt: number }
  /** The session id of a valid, unexpired cookie value. */
  readonly verify: (value: string | undefined, nowMs: number) => string | undefined
  readonly csrfOf: (sessionId: string) => string
  readonly csrfMatches: (sessionId: string, given: string | undefined) => boolean
}

const equal = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export const consoleSessions = (token: Redacted.Redacted<string>): ConsoleSessions => {
  const key = createHmac("sha256", Redacted.value(token)).update("gateway console session v1").digest()
  const mac = (text: string) => base64url(createHmac("sha256", key).update(text).digest())
  const csrfOf = (id: string) => mac(`csrf.${id}`)
  return {
    issue: (nowMs) => {
      const expiresAt = Math.floor(nowMs / 1000) + sessionSeconds
      const id = base64url(randomBytes(18))
      const payload = `v1.${expiresAt}.${id}`
      return { id, value: `${payload}.${mac(payload)}`, csrf: csrfOf(id), expiresAt }
    },
    verify: (value, nowMs) => {
      if (value === undefined || value.length > 200) return undefined
      const parts = value.split(".")
      if (parts.length !== 4 || parts[0] !== "v1") return undefined
      const [, expires = "", id = "", signature = ""] = parts
      if (!equal(mac(`v1.${expires}.${id}`), signature)) return undefined
      return Number(expires) * 1000 > nowMs ? id : undefined
    },
    csrfOf,
    csrfMatches: (id, given) => given !== undefined && equal(csrfOf(id), given)
  }
}

/** TLS ends at the gateway (an encrypted socket) or before it (a proxy's `x-forwarded-proto`). */
export const servedOverTls = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = request.source as { readonly socket?: Partial<TLSSocket> }
  return source.socket?.encrypted === true || request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https"
}

export const cookieHeader = (request: HttpServerRequest.HttpServerRequest, value: string, maxAge: number): string =>
  `${sessionCookie}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${servedOverTls(request) ? "; Secure" : ""}`

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/** What a console cookie is: none at all, a forgery (bad signature), out of date, or a signed session id. */
export type CookieCheck =
  | { readonly _tag: "None" }
  | { readonly _tag: "Forged" }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Signed"; readonly id: string }

export const checkCookie = (sessions: ConsoleSessions, value: string | undefined, nowMs: number): CookieCheck => {
  if (value === undefined) return { _tag: "None" }
  const id = sessions.verify(value, nowMs)
  if (id !== undefined) return { _tag: "Signed", id }
  // Signed but past its expiry, or not ours at all.
  return sessions.verify(value, 0) === undefined ? { _tag: "Forged" } : { _tag: "Expired" }
}

/**
 * Whether the request is admitted by a console session instead of the bearer token: undefined
 * when it is, otherwise the refusal. The cookie must be signed, unexpired and still live on the
 * server (not signed out); reads that change nothing need only that, every other method needs
 * the CSRF token too. `onForged` is told of a cookie that is not ours (counted as a failed attempt).
 */
export const sessionRefusal = (
  sessions: ConsoleSessions,
  store: ConsoleSessionStoreShape,
  request: HttpServerRequest.HttpServerRequest,
  nowMs: number,
  onForged: () => void
): Effect.Effect<GatewayError | undefined, GatewayError> => {
  const cookie = checkCookie(sessions, request.cookies[sessionCookie], nowMs)
  switch (cookie._tag) {
    case "None":
      return Effect.succeed(noSession)
    case "Forged":
      onForged()
      return Effect.succeed(expired)
    case "Expired":
      return Effect.succeed(expired)
    case "Signed":
      return Effect.map(store.isLive(cookie.id, nowMs), (live) => {
        if (!live) return expired
        if (safeMethods.has(request.method)) return undefined
        return sessions.csrfMatches(cookie.id, request.headers[csrfHeader]) ? undefined : csrfRefused
      })
  }
}

const noSession = GatewayError.unauthenticated(
  "You didn't provide the admin token. Send it in the Authorization header as 'Bearer GATEWAY_ADMIN_TOKEN'.",
  "missing_admin_token"
)
const expired = GatewayError.unauthenticated("The console session has expired, was signed out or is invalid; sign in again.", "invalid_console_session")
const csrfRefused = GatewayError.forbidden(
  `This change needs the console's CSRF token in the ${csrfHeader} header.`,
  "csrf_token_mismatch"
)
