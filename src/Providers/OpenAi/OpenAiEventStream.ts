import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"
import type * as Sse from "effect/encoding/Sse"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
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
  Stream.transformPull(events, (pull) =>
    Effect.sync(() => {
      const state = initialOpenAiStreamState()
      let ended = false
      let failure: GatewayError | undefined
      const endOfBody = Effect.suspend((): Effect.Effect<never, GatewayError | Cause.Done> =>
        ended ? Cause.done() : Effect.fail(streamFailure(provider, "the stream ended early", true))
      )
      const decode = (batch: Arr.NonEmptyReadonlyArray<Sse.Event>): Array<ChatStreamEvent> => {
        const out: Array<ChatStreamEvent> = []
        for (const event of batch) {
          const step = openAiStreamStep(state, event.data)
          if (step._tag === "Done") {
            ended = true
            break
          }
          if (step._tag === "Error") {
            failure = streamFailure(provider, step.message, step.code !== "invalid_request_error")
            break
          }
          for (const e of step.events) out.push(e)
        }
        return out
      }
      // Built once per stream and run for every batch: a pull allocates only what it reads.
      const read = Effect.flatMap(Pull.catchDone(pull, () => endOfBody), (batch) => {
        const out = decode(batch)
        return out.length > 0 ? Effect.succeed(out as unknown as Arr.NonEmptyReadonlyArray<ChatStreamEvent>) : next
      })
      const next: Pull.Pull<Arr.NonEmptyReadonlyArray<ChatStreamEvent>, GatewayError> = Effect.suspend(() => {
        if (failure !== undefined) return Effect.fail(failure)
        if (ended) return Cause.done()
        return read
      })
      return next
    }))
