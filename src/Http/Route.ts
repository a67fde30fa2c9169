import type * as Effect from "effect/Effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { handle, type HandleOptions } from "./Handler.ts"

export type Method = "GET" | "POST" | "DELETE"

/** A method and path the server answers, registered here or elsewhere (the admin API). */
export interface RouteSignature {
  readonly method: Method
  readonly path: HttpRouter.PathInput
}

/** One entry of the route table; the table also answers 405 for known paths. */
export interface Route<R> {
  readonly method: Method
  readonly path: HttpRouter.PathInput
  readonly handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
}

export const route = <R>(
  method: Method,
  path: HttpRouter.PathInput,
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>,
  options?: HandleOptions
): Route<R | HttpServerRequest.HttpServerRequest> => ({ method, path, handler: handle(handler, options) })
