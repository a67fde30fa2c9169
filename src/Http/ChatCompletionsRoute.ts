import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeChatRequest } from "../Domain/ChatRequestDecoder.ts"
import { ChatCompletions } from "../Services/Chat/ChatCompletions.ts"
import { meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"
import { chatFraming, streamResponse } from "./SseResponse.ts"

const chatCompletions = meteredEndpoint("chat", "chat", decodeChatRequest, (request, meter, principal) =>
  Effect.flatMap(Effect.service(ChatCompletions), (chat) => chat.run(request, meter, principal.projectId)).pipe(
    Effect.flatMap((result) =>
      result._tag === "Json"
        ? Effect.succeed(HttpServerResponse.jsonUnsafe(result.body, { headers: routeHeaders(meter) }))
        : streamResponse(result.chunks, meter, chatFraming)
    )
  ), chatWorstCase)

export const chatRoutes = [route("POST", "/v1/chat/completions", chatCompletions)]
