import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { type SseEncoding, sseBody } from "../Streams/SseBody.ts"
import { CurrentDrain } from "./ServerDrain.ts"

export type { Frames, SseEncoding } from "../Streams/SseBody.ts"
export { stoppedMessage } from "../Streams/StreamStop.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

/**
 * SSE for a model stream in a dialect's `encoding` (see SseBody.ts, its one writer): keep-alives
 * every `server.keepalive_seconds` of silence, and the dialect's stop frames when the server's
 * shutdown grace runs out. The response starts once the first frames are known, so a failure
 * before them is still a proper HTTP error; `headers` is read then, so it can name the route that
 * serves.
 */
/** What a streamed response needs from its context. */
export type StreamResponseContext = GatewayConfigFile | Scope.Scope

export const streamResponse = <C>(
  chunks: Stream.Stream<C, GatewayError>,
  encoding: SseEncoding<C>,
  headers: () => Readonly<Record<string, string>>
): Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, GatewayConfigFile | Scope.Scope> =>
  Effect.flatMap(Effect.context<GatewayConfigFile>(), (context) =>
    Effect.map(
      sseBody(chunks, {
        encoding,
        keepAliveMs: Context.get(context, GatewayConfigFile).config.server.keepalive_seconds * 1000,
        stop: Context.getUnsafe(context, CurrentDrain)
      }),
      (body) => HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: { ...sseHeaders, ...headers() } })
    ))
