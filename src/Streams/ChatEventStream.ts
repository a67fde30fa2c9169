import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { Usage } from "../Domain/Usage.ts"
import type { ChatStreamEvent } from "../Domain/ChatStreamEvent.ts"
import { ChunkNormaliser, type ChunkEnvelope, type ChunkWire } from "./ChunkNormaliser.ts"

/** What the stream tells its observer (the request meter) as it goes. */
export interface StreamObserver {
  readonly onServed: (model: string, provider: string, upstreamModel: string) => void
  readonly onUsage: (usage: Usage) => void
  readonly onFirstChunk: (at: number) => void
  /** UTF-8 bytes of generated text and tool arguments, for an estimate if usage never comes. */
  readonly onGenerated: (bytes: number) => void
}

const generatedBytes = (event: Input): number => {
  switch (event._tag) {
    case "TextDelta":
    case "ReasoningDelta":
    case "RefusalDelta":
      return Buffer.byteLength(event.text, "utf8")
    case "ToolCallDelta":
      return Buffer.byteLength(event.arguments, "utf8")
    default:
      return 0
  }
}

type Input =
  | { readonly _tag: "Served"; readonly served: { readonly model: string; readonly provider: string; readonly upstreamModel: string } }
  | ChatStreamEvent

/**
 * A dialect's stream encoder: provider-neutral events in, the dialect's wire objects out
 * (chat chunks, typed Responses events...). One is made for each attempt, with the catalogue
 * id of the model serving it; `end` is called only when the upstream ended normally.
 */
export interface StreamEncoder<Out> {
  readonly push: (event: ChatStreamEvent) => ReadonlyArray<Out>
  readonly end: () => ReadonlyArray<Out>
}

/**
 * Routed provider events -> the client's chunk objects in spec 6.3 order. The envelope's
 * `model` follows the route that finally serves (a `Served` marker opens each attempt); no
 * chunk is produced before the first content, so a route that fails before that leaves no trace.
 */
export const normalisedChunks = (
  events: Stream.Stream<Input, GatewayError>,
  envelope: ChunkEnvelope,
  includeUsage: boolean,
  observer: StreamObserver
): Stream.Stream<ChunkWire, GatewayError> =>
  encodedEvents(events, (model) => new ChunkNormaliser({ ...envelope, model }, includeUsage), envelope.model, observer)

/**
 * Routed provider events -> a dialect's objects, through a fresh encoder per attempt (see
 * `normalisedChunks`). Each pull turns a whole batch of events into objects, so an object costs
 * the encoder's work and nothing that grows with the stream.
 */
export const encodedEvents = <Out>(
  events: Stream.Stream<Input, GatewayError>,
  encoder: (model: string) => StreamEncoder<Out>,
  model: string,
  observer: StreamObserver
): Stream.Stream<Out, GatewayError> =>
  Stream.transformPull(events, (pull) =>
    Effect.clockWith((clock) =>
      Effect.sync(() => {
        let current = encoder(model)
        let started = false
        let closed = false
        const emit = (chunks: ReadonlyArray<Out>) => {
          if (!started) {
            started = true
            observer.onFirstChunk(clock.currentTimeMillisUnsafe())
          }
          return Effect.succeed(chunks as unknown as Arr.NonEmptyReadonlyArray<Out>)
        }
        // Built once per stream and run for every batch: a pull allocates only what it reads.
        const read = Effect.flatMap(Pull.catchDone(pull, () => Effect.undefined), (batch) => {
          // Only a stream that ended normally is closed with finish (and usage) chunks; a
          // failure propagates as is, so the caller can fall back or send the error frame.
          if (batch === undefined) {
            closed = true
            const tail = current.end()
            return tail.length > 0 ? emit(tail) : Cause.done()
          }
          const out: Array<Out> = []
          for (const event of batch) {
            if (event._tag === "Served") {
              // Each attempt starts clean: nothing of a failed attempt reached the client.
              current = encoder(event.served.model)
              observer.onServed(event.served.model, event.served.provider, event.served.upstreamModel)
              continue
            }
            for (const chunk of current.push(event)) out.push(chunk)
            if (event._tag === "Usage") observer.onUsage(event.usage)
            else {
              const bytes = generatedBytes(event)
              if (bytes > 0) observer.onGenerated(bytes)
            }
          }
          return out.length > 0 ? emit(out) : next
        })
        const next: Pull.Pull<Arr.NonEmptyReadonlyArray<Out>, GatewayError> = Effect.suspend(() =>
          closed ? Cause.done() : read
        )
        return next
      })
    ))
