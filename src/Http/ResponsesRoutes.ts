import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
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
import { meteredReadEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"
import { type SseFraming, streamResponse } from "./SseResponse.ts"

/** The body decoded, its stored context resolved, as the neutral request the chat pipeline routes. */
const readCall = Effect.flatMap(Effect.flatMap(readJsonObject, decodeResponsesRequest), (create) =>
  Effect.flatMap(Effect.service(Responses), (responses) =>
    Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => responses.prepare(create, principal.projectId))))

/** Responses events framed as the API sends them; no terminator after the last event. */
const framing = (failed: (error: GatewayError) => ReadonlyArray<ResponseEvent>): SseFraming<ResponseEvent> => ({
  encode: encodeResponseEvents,
  done: [],
  failed: (error) => [encodeResponseEvents(failed(error))],
  stopped: (message) => [encodeResponseEvents(failed(GatewayError.internal(message)))]
})

const create = meteredReadEndpoint("chat", "chat", readCall, (call, meter, principal) =>
  Effect.flatMap(Effect.service(Responses), (responses) => responses.create(call, meter, principal.projectId)).pipe(
    Effect.flatMap((result) =>
      result._tag === "Json"
        ? Effect.succeed(HttpServerResponse.jsonUnsafe(result.body, { headers: routeHeaders(meter) }))
        : streamResponse(result.events, meter, framing(result.failed))
    )
  ), (call, context) => chatWorstCase(call.chat, context))

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
  route("POST", "/v1/responses", create),
  route("GET", "/v1/responses/:response_id", retrieve),
  route("DELETE", "/v1/responses/:response_id", remove)
]
