import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as Sse from "effect/encoding/Sse"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { streamFailure } from "../ProviderErrors.ts"
import { initialResponsesApiStreamState, responsesApiStreamStep } from "./OpenAiResponsesApi.ts"

/**
 * SSE events of a Responses API stream -> provider-neutral events (each upstream event kept as a
 * `Native` event first). Stops after `response.completed`/`response.incomplete`; a failed
 * response, an `error` event or a body that closes before the end fails the stream.
 */
export const responsesApiEvents = (
  provider: string,
  events: Stream.Stream<Sse.Event, GatewayError>
): Stream.Stream<ChatStreamEvent, GatewayError> =>
  Stream.suspend(() => {
    const state = initialResponsesApiStreamState()
    let ended = false
    return events.pipe(
      Stream.takeWhile(() => !ended),
      Stream.mapEffect((event) => {
        const step = responsesApiStreamStep(state, event.event, event.data)
        switch (step._tag) {
          case "Error":
            return Effect.fail(streamFailure(provider, step.message, step.retryable))
          case "Done":
            ended = true
            return Effect.succeed(step.events)
          case "Events":
            return Effect.succeed(step.events)
        }
      }),
      Stream.flattenIterable,
      Stream.concat(Stream.suspend(() => (ended ? Stream.empty : Stream.fail(streamFailure(provider, "the stream ended early", true)))))
    )
  })
