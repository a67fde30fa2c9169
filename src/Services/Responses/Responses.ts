import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { type ResponseObject, responseOf } from "../../Dialects/Responses/ResponseObject.ts"
import type { ResponsesCall } from "../../Dialects/Responses/ResponsesRequest.ts"
import { streamErrorCode } from "../../Dialects/Responses/ResponsesSse.ts"
import { type ResponseEvent, ResponsesStreamEncoder } from "../../Dialects/Responses/ResponsesStreamEncoder.ts"
import { type ChatEncoding, ChatCompletions } from "../Chat/ChatCompletions.ts"
import type { RequestMeter } from "../Usage/UsageMeter.ts"

export type ResponsesResult =
  | { readonly _tag: "Json"; readonly body: ResponseObject }
  | {
    readonly _tag: "Stream"
    /** Typed events; fails only before the first one (then nothing was sent yet). */
    readonly events: Stream.Stream<ResponseEvent, GatewayError>
    /** The events that end a stream broken after it started (`error`, `response.failed`). */
    readonly failed: (error: GatewayError) => ReadonlyArray<ResponseEvent>
  }

/**
 * `POST /v1/responses`: the chat use case with the Responses encoding. The response id is made
 * once per request and kept across attempts, like the model id follows the route that serves.
 */
export class Responses extends Context.Service<
  Responses,
  { readonly create: (call: ResponsesCall, meter: RequestMeter, projectId: string) => Effect.Effect<ResponsesResult, GatewayError> }
>()("gateway/Responses") {
  static readonly layer = Layer.effect(
    Responses,
    Effect.gen(function* () {
      const chat = yield* ChatCompletions

      const create = (call: ResponsesCall, meter: RequestMeter, projectId: string) =>
        Effect.clockWith((clock) => {
          const id = Ids.storedResponseId()
          const now = () => clock.currentTimeMillisUnsafe()
          let latest: ResponsesStreamEncoder | undefined
          const encoding: ChatEncoding<ResponseObject, ResponseEvent> = {
            json: (completion, served) =>
              responseOf(call.create, { id, createdAt: served.created, model: served.model }, completion, Math.floor(now() / 1000)),
            stream: (model, created) => (latest = new ResponsesStreamEncoder(call.create, { id, createdAt: created, model }, now))
          }
          return Effect.map(chat.runWith(call.chat, meter, projectId, encoding), (result): ResponsesResult => {
            if (result._tag === "Json") return result
            const failed = (error: GatewayError) => latest?.fail(streamErrorCode(error.reason), error.reason.message) ?? []
            return { _tag: "Stream", events: result.chunks, failed }
          })
        }).pipe(Effect.withSpan("Responses.create"))

      return Responses.of({ create })
    })
  )
}

