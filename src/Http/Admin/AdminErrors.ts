import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { schemaErrorToGateway } from "../../Domain/SchemaErrors.ts"
import { bodyTooLarge } from "../BodyLimits.ts"
import { handle } from "../Handler.ts"
import { BodyReadTimeout, bodyStall } from "../JsonBody.ts"
import { documentedErrors } from "./AdminSchemas.ts"

/** Admin bodies are a few short fields; anything bigger is a mistake or abuse. */
export const adminBodyLimit = 64 * 1024

/**
 * Wraps each admin endpoint inside the token check. It renders every failure, including the
 * framework's own decode failures, with the gateway's envelope (src/Http/ErrorResponse.ts),
 * so clients see one error shape across the whole service.
 */
export class AdminErrors extends HttpApiMiddleware.Service<AdminErrors>()("gateway/AdminErrors", {
  error: documentedErrors
}) {}

const isBodyTooLarge = (defect: unknown): boolean =>
  HttpServerError.isHttpServerError(defect) &&
  defect.reason._tag === "RequestParseError" &&
  defect.reason.reason === "BodyTooLarge"

const tooLarge = bodyTooLarge({ bytes: adminBodyLimit, route: "/admin", key: undefined })

/** Checked before the framework reads the body: it would answer these with bare text bodies. */
const checkBody = (endpoint: HttpApiEndpoint.Top) =>
  Effect.gen(function* () {
    if (endpoint.payload.size === 0) return
    const request = yield* HttpServerRequest.HttpServerRequest
    const contentType = (request.headers["content-type"] ?? "application/json").split(";", 1)[0]!.trim().toLowerCase()
    if (!endpoint.payload.has(contentType)) {
      return yield* GatewayError.unsupportedMedia(
        "This endpoint takes a JSON body; set the header Content-Type: application/json."
      )
    }
    const length = request.headers["content-length"]
    const chunked = request.headers["transfer-encoding"] !== undefined
    if ((length === undefined && !chunked) || length === "0") {
      return yield* GatewayError.invalid("This endpoint takes a JSON object body; send {} to accept every default.", undefined, "missing_body")
    }
    if (Number(length) > adminBodyLimit) return yield* tooLarge
  })

const toGateway = (failure: unknown): Effect.Effect<never, GatewayError> => {
  if (HttpApiError.HttpApiSchemaError.is(failure)) {
    switch (failure.kind) {
      case "Params":
      case "Query":
      case "Headers":
      case "Payload":
        return Effect.fail(schemaErrorToGateway(failure.cause))
      case "Body":
      case "ResponseHeaders":
        // Our own response did not match its schema: a server bug, not a client mistake.
        return Effect.die(failure)
    }
  }
  return Effect.die(failure)
}

/** A body that stalls is a 408 here too; the admin API is not a hot path, so a race is fine. */
const withinBodyTimeout = <A, R>(effect: Effect.Effect<A, GatewayError, R>, endpoint: HttpApiEndpoint.Top) =>
  endpoint.payload.size === 0
    ? effect
    : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(Effect.service(BodyReadTimeout), (stallMs) => Effect.raceFirst(effect, bodyStall(request, stallMs))))

export const AdminErrorsLive: Layer.Layer<AdminErrors> = Layer.succeed(AdminErrors, (httpEffect, { endpoint }) =>
  handle(
    Effect.gen(function* () {
      yield* checkBody(endpoint)
      return yield* withinBodyTimeout(
        (httpEffect as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>).pipe(
          Effect.catch(toGateway),
          Effect.catchDefect((defect) => (isBodyTooLarge(defect) ? Effect.fail(tooLarge) : Effect.die(defect))),
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(adminBodyLimit))
        ),
        endpoint
      )
    })
  )
)
