import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeChatRequest } from "../Domain/ChatRequestDecoder.ts"
import { ChatCompletions } from "../Services/Chat/ChatCompletions.ts"
import type { ChunkWire } from "../Streams/ChunkNormaliser.ts"
import type { SseFraming } from "../Streams/SseBody.ts"
import { doneFrame, encodeDataBatch, errorFrame } from "../Streams/SseEncoder.ts"
import { meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"
import { sseResponse } from "./SseResponse.ts"

/** Spec 6.3/6.6: `data:` frames, `data: [DONE]` at the end, the error frame before it when the stream fails or is stopped. */
const chatFraming: SseFraming<ChunkWire> = {
  encode: encodeDataBatch,
  done: () => [doneFrame],
  failed: (error) => [errorFrame(error.reason.message), doneFrame],
  stopped: (message) => [errorFrame(message), doneFrame]
}

const chatCompletions = meteredEndpoint("chat", "chat", decodeChatRequest, (request, meter, principal) =>
  Effect.flatMap(Effect.service(ChatCompletions), (chat) => chat.run(request, meter, principal.projectId)).pipe(
    Effect.flatMap((result) =>
      result._tag === "Json"
        ? Effect.succeed(HttpServerResponse.jsonUnsafe(result.body, { headers: routeHeaders(meter) }))
        : sseResponse(result.chunks, chatFraming, () => routeHeaders(meter))
    )
  ), chatWorstCase)

export const chatRoutes = [route("POST", "/v1/chat/completions", chatCompletions)]
