import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type { Principal } from "../Domain/ApiKey.ts"
import { requestHeader } from "./NodeMessage.ts"

/** The request header that asks for strict translation on one request. */
export const strictHeader = "x-gateway-strict"

/**
 * Strict translation for this request: asked for by the header (`x-gateway-strict: true`), or
 * set on the key or its project. A key's or project's strictness cannot be lifted per request.
 */
export const isStrict = (request: HttpServerRequest.HttpServerRequest, principal: Principal): boolean =>
  principal.strictTranslation === true || requestHeader(request, strictHeader)?.trim().toLowerCase() === "true"
