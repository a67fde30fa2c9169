import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { type SseFraming, sseBody } from "../Streams/SseBody.ts"
import { CurrentDrain } from "./ServerDrain.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

/**
 * A streamed response of `events` in `framing` (see SseBody.ts): keep-alive comments every
 * `server.keepalive_seconds` of silence, and the stop frame when the server's shutdown grace runs
 * out. It starts once the first frames are known, so a failure before them is still an HTTP error;
 * `headers` is read then (the route that serves is known by then).
 */
export const sseResponse = <A>(
  events: Stream.Stream<A, GatewayError>,
  framing: SseFraming<A>,
  headers: () => Readonly<Record<string, string>>
): Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, GatewayConfigFile | Scope.Scope> =>
  Effect.flatMap(Effect.context<GatewayConfigFile>(), (context) =>
    Effect.map(
      sseBody(events, {
        framing,
        keepAliveMs: Context.get(context, GatewayConfigFile).config.server.keepalive_seconds * 1000,
        stop: Context.getUnsafe(context, CurrentDrain)
      }),
      (body) => HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: { ...sseHeaders, ...headers() } })
    ))
