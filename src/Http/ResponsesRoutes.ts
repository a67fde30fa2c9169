import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeResponsesRequest } from "../Dialects/Responses/ResponsesDecoder.ts"
import { encodeResponseEvents } from "../Dialects/Responses/ResponsesSse.ts"
import type { ResponseEvent } from "../Dialects/Responses/ResponsesStreamEncoder.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import { Responses } from "../Services/Responses/Responses.ts"
import { ResponseStore } from "../Services/Responses/ResponseStore.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { readJsonObject } from "./JsonBody.ts"
import { type Answer, answerWith, meteredReadEndpoint } from "./MeteredEndpoint.ts"
import { requestHeader } from "./NodeMessage.ts"
import { route } from "./Route.ts"
import { keepAliveFrame } from "../Streams/SseEncoder.ts"
import { type Frames, type SseEncoding, stoppedMessage, type StreamResponseContext, streamResponse } from "./SseResponse.ts"

/** The body decoded, its stored context resolved, as the neutral request the chat pipeline routes. */
// The chat routes' body cap (`server.body_limit_mb`): a Responses request carries what a chat request does.
const readCall = Effect.flatMap(Effect.flatMap(readJsonObject((table) => table.chat), decodeResponsesRequest), (create) =>
  Effect.flatMap(Effect.service(Responses), (responses) =>
    Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => responses.prepare(create, principal.projectId))))

/**
 * Responses events framed as the API sends them. The stream's own last event ends it (no
 * terminator); a failure after the first event is already `error` + `response.failed` in the
 * stream, so `failed` only serves a stream cut by shutdown, built from the encoder's state.
 */
const sseEncoding = (failed: (error: GatewayError) => ReadonlyArray<ResponseEvent>): SseEncoding<ResponseEvent> => ({
  batch: encodeResponseEvents,
  done: () => [],
  failed: (error): Frames => [encodeResponseEvents(failed(error))],
  keepAlive: keepAliveFrame,
  get stopped(): Frames {
    return [encodeResponseEvents(failed(GatewayError.internal(stoppedMessage)))]
  }
})

/** Strict translation per request: `x-gateway-strict: true` (a route that would drop a field is not taken). */
const strictOf = Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
  requestHeader(request, "x-gateway-strict")?.trim().toLowerCase() === "true")

const create = meteredReadEndpoint("chat", "chat", readCall, (call, log, principal) =>
  Effect.flatMap(Effect.zip(Effect.service(Responses), strictOf), ([responses, strict]) =>
    responses.create(call, log, principal.projectId, strict ? { strict: true } : {})).pipe(
    Effect.map((result): Answer<StreamResponseContext> =>
      result._tag === "Json"
        ? answerWith(result.outcome, (headers) => HttpServerResponse.jsonUnsafe(result.body, { headers }))
        : { outcome: result.outcome, response: (headers) => streamResponse(result.events, sseEncoding(result.failed), headers) }
    )
  ), (call, context) => chatWorstCase(call.chat, context), { dialect: "responses" })

const responseIdParam = Effect.map(HttpRouter.params, (params) => params["response_id"] ?? "")

const retrieve = authenticated(
  "chat",
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const stored = yield* (yield* ResponseStore).get(principal.projectId, yield* responseIdParam)
    return HttpServerResponse.jsonUnsafe(stored.response)
  })
)

const remove = authenticated(
  "chat",
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const id = yield* responseIdParam
    yield* (yield* ResponseStore).remove(principal.projectId, id)
    return HttpServerResponse.jsonUnsafe({ id, object: "response", deleted: true })
  })
)

export const responsesRoutes = [
  route("POST", "/v1/responses", create, { dialect: "responses" }),
  route("GET", "/v1/responses/:response_id", retrieve, { dialect: "responses" }),
  route("DELETE", "/v1/responses/:response_id", remove, { dialect: "responses" })
]
