import { Clock, Effect, Stream } from "effect"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { Usage } from "../Domain/Usage.ts"
import { ChunkNormaliser, type ChunkEnvelope, type ChunkWire } from "./ChunkNormaliser.ts"

/** What the stream tells its observer (the request meter) as it goes. */
export interface StreamObserver {
  readonly onServed: (model: string, provider: string, upstreamModel: string) => void
  readonly onUsage: (usage: Usage) => void
  readonly onFirstChunk: (at: number) => void
}

type Input =
  | { readonly _tag: "Served"; readonly served: { readonly model: string; readonly provider: string; readonly upstreamModel: string } }
  | Parameters<ChunkNormaliser["push"]>[0]

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
): Stream.Stream<ChunkWire, GatewayError> => {
  let current = new ChunkNormaliser(envelope, includeUsage)
  let started = false
  return events.pipe(
    Stream.mapAccum(
      () => undefined,
      (_, event) => {
        if (event._tag === "Served") {
          // Each attempt starts clean: nothing of a failed attempt reached the client.
          current = new ChunkNormaliser({ ...envelope, model: event.served.model }, includeUsage)
          observer.onServed(event.served.model, event.served.provider, event.served.upstreamModel)
          return [undefined, []] as const
        }
        const chunks = current.push(event)
        if (event._tag === "Usage") observer.onUsage(event.usage)
        return [undefined, chunks] as const
      }
    ),
    // Only a stream that ended normally is closed with finish (and usage) chunks; a failure
    // propagates as is, so the caller can fall back or send the error frame.
    Stream.concat(Stream.suspend(() => Stream.fromIterable(current.end()))),
    Stream.tap(() =>
      started
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            started = true
            observer.onFirstChunk(now)
          })
        )
    )
  )
}
