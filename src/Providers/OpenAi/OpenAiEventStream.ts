import type * as Stream from "effect/Stream"
import type * as Sse from "effect/encoding/Sse"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { batchStage, type StageEnd } from "../../Streams/BatchStage.ts"
import { streamFailure } from "../ProviderErrors.ts"
import { initialOpenAiStreamState, openAiStreamStep } from "./OpenAiStream.ts"

/**
 * SSE events of an OpenAI-style stream -> provider-neutral events, a whole batch of events per
 * pull: the work per chunk is the codec itself, not a round of stream operators per event.
 * Stops at `[DONE]`; a provider error event or an event that is not JSON fails the stream after
 * the events before it; a connection that closes before `[DONE]` is a broken stream even after a
 * finish reason (the usage that follows it may be what was lost).
 */
export const openAiEvents = (
  provider: string,
  events: Stream.Stream<Sse.Event, GatewayError>
): Stream.Stream<ChatStreamEvent, GatewayError> =>
  batchStage(events, (end: StageEnd<GatewayError>) => {
    const state = initialOpenAiStreamState()
    return {
      step: (batch) => {
        const out: Array<ChatStreamEvent> = []
        for (const event of batch) {
          const step = openAiStreamStep(state, event.data)
          if (step._tag === "Done") {
            end.done()
            break
          }
          if (step._tag === "Error") {
            end.fail(streamFailure(provider, step.message, step.code !== "invalid_request_error"))
            break
          }
          for (const e of step.events) out.push(e)
        }
        return out
      },
      flush: () => {
        end.fail(streamFailure(provider, "the stream ended early", true))
        return []
      }
    }
  })
