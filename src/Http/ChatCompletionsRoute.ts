import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeChatRequest } from "../Domain/ChatRequestDecoder.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { ChatCompletions } from "../Services/Chat/ChatCompletions.ts"
import { chatEncoding } from "../Services/Chat/ChatEncoding.ts"
import type { ChunkWire } from "../Streams/ChunkNormaliser.ts"
import { doneFrame, encodeDataBatch, errorFrame, keepAliveFrame } from "../Streams/SseEncoder.ts"
import { type Answer, meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { isStrict } from "./StrictTranslation.ts"
import { type Frames, type SseEncoding, stoppedMessage, type StreamResponseContext, streamResponse } from "./SseResponse.ts"

const done: Frames = [doneFrame]

/** Chat's stream: `data:` frames, `[DONE]`, and the spec 6.6 error frame after the first byte or at a stop. */
const chatSse: SseEncoding<ChunkWire> = {
  batch: encodeDataBatch,
  done: () => done,
  failed: (error: GatewayError) => [errorFrame(error.reason.message), doneFrame],
  keepAlive: keepAliveFrame,
  stopped: [errorFrame(stoppedMessage), doneFrame]
}

const strictRun = { strict: true } as const

const chatCompletions = meteredEndpoint("chat", "chat", decodeChatRequest, (request, log, principal) =>
  Effect.flatMap(Effect.context<ChatCompletions | HttpServerRequest.HttpServerRequest>(), (context) =>
    Context.get(context, ChatCompletions).run(
      request,
      log,
      principal.projectId,
      chatEncoding(request.includeUsage),
      isStrict(Context.get(context, HttpServerRequest.HttpServerRequest), principal) ? strictRun : undefined
    )).pipe(
    Effect.map((result): Answer<StreamResponseContext> => ({
      outcome: result.outcome,
      response: (headers) =>
        result._tag === "Json"
          ? Effect.succeed(HttpServerResponse.jsonUnsafe(result.body, { headers: headers() }))
          : streamResponse(result.chunks, chatSse, headers)
    }))
  ), chatWorstCase)

export const chatRoutes = [route("POST", "/v1/chat/completions", chatCompletions)]
