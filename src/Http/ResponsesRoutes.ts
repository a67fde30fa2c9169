import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import { chatRequestOf, decodeResponsesRequest } from "../Dialects/Responses/ResponsesDecoder.ts"
import { encodeResponseEvents } from "../Dialects/Responses/ResponsesSse.ts"
import type { ResponseEvent } from "../Dialects/Responses/ResponsesStreamEncoder.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import { Responses } from "../Services/Responses/Responses.ts"
import { readJsonObject } from "./JsonBody.ts"
import { meteredReadEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"
import { type SseFraming, streamResponse } from "./SseResponse.ts"

const attempt = <A>(f: () => A): Effect.Effect<A, GatewayError> =>
  Effect.try({ try: f, catch: (error) => (error instanceof GatewayError ? error : GatewayError.internal(String(error))) })

/** The body, decoded and translated into the neutral request the chat pipeline routes. */
const readCall =
  Effect.flatMap(Effect.flatMap(readJsonObject, decodeResponsesRequest), (create) =>
    create.settings.previous_response_id != null
      ? Effect.fail(GatewayError.notFound(`Previous response with id '${create.settings.previous_response_id}' not found.`, "previous_response_id"))
      : attempt(() => chatRequestOf(create, create.input)))

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

export const responsesRoutes = [route("POST", "/v1/responses", create)]
