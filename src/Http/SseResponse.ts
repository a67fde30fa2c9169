import type { ServerResponse } from "node:http"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { firstWithin, type IdleTicker, idleTicker } from "../Streams/KeepAlive.ts"
import { serverResponseOf } from "./NodeMessage.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

export type Frames = Arr.NonEmptyReadonlyArray<Uint8Array>

/**
 * How a dialect writes its stream: a batch of chunks, the normal end, a failure after the
 * first byte, the keep-alive, and the frame a stream cut by shutdown ends with. Chat writes
 * `data:` frames and `[DONE]`; Messages writes Anthropic's typed events.
 */
export interface SseEncoding<C> {
  readonly batch: (chunks: Arr.NonEmptyReadonlyArray<C>) => Uint8Array
  /** Read once, when the stream ended normally (a dialect's last frames may carry what it gathered). */
  readonly done: () => Frames
  readonly failed: (error: GatewayError) => Frames
  readonly keepAlive: Uint8Array
  readonly stopped: Frames
}

const stoppedMessage = "The gateway stopped before this stream ended; retry the request."
export { stoppedMessage }

/**
 * SSE for a model stream. The first frame decides the answer: a failure before any byte is
 * still a proper HTTP error; after it, failures become the dialect's error frame. The stream is
 * pulled in the request's scope directly (`Stream.toPull` would re-provide every service to
 * every pull). A silent upstream gets keep-alives: as the first frame while nothing was sent,
 * then written beside the body (see KeepAlive.ts). `headers` is read when the first frame is
 * ready, so it can name the route that serves.
 */
export const streamResponse = <C>(chunks: Stream.Stream<C, GatewayError>, encoding: SseEncoding<C>, headers: () => Record<string, string>) =>
  Effect.flatMap(Effect.context<GatewayConfigFile | Scope.Scope | HttpServerRequest.HttpServerRequest>(), (context) => {
    const keepAliveMs = Context.get(context, GatewayConfigFile).config.server.keepalive_seconds * 1000
    const scope = Context.get(context, Scope.Scope)
    return Effect.flatMap(Channel.toPullScoped(chunks.channel, scope), (pull) => {
      const encoded = Effect.map(pull, (batch): Frames => [encoding.batch(batch)])
      let finished = false
      const last = (tail: Frames) => {
        finished = true
        return Effect.succeed(tail)
      }
      const orEnding = (read: Effect.Effect<Frames, GatewayError | Cause.Done>) =>
        Effect.catch(read, (error) => (Cause.isDone(error) ? last(encoding.done()) : last(encoding.failed(error))))
      let pending: Fiber.Fiber<Frames, GatewayError | Cause.Done> | undefined
      let ticker: IdleTicker | undefined
      const response = serverResponseOf(Context.get(context, HttpServerRequest.HttpServerRequest))
      // Built once per stream and run for every batch.
      const encodedOrEnding = orEnding(encoded)
      // After the first frame: the rest, then the end; a failure becomes the error frame.
      const rest = Effect.suspend(() => {
        if (finished) return Cause.done()
        // Asked for more right after writing the previous frames.
        ticker?.touch()
        if (pending === undefined) return encodedOrEnding
        const first = pending
        pending = undefined
        return orEnding(Fiber.join(first))
      })
      // Interrupted while the client is still connected: the server is stopping (the shutdown
      // grace ran out). The client gets the error frame and the end before the close, written
      // straight to the socket, since the interrupted stream can emit nothing more.
      const restOrCut = response === undefined ? rest : Effect.onInterrupt(rest, () => Effect.sync(() => cutOff(response, encoding.stopped)))
      const start = (first: Frames) => {
        let sent = false
        const body = Effect.suspend(() => {
          if (sent) return restOrCut
          sent = true
          return Effect.succeed(first)
        })
        const ready = HttpServerResponse.stream(Stream.fromPull(Effect.succeed(body)), {
          contentType: "text/event-stream",
          headers: { ...sseHeaders, ...headers() }
        })
        if (response === undefined) return Effect.succeed(ready)
        // Keep-alives beside the body, on Node only.
        const beside = idleTicker(keepAliveMs, () => {
          if (response.headersSent && !response.writableEnded && !response.destroyed) response.write(encoding.keepAlive)
        })
        ticker = beside
        return Effect.as(Scope.addFinalizer(scope, Effect.sync(beside.stop)), ready)
      }
      return Effect.flatMap(firstWithin(encoded, keepAliveMs, scope), (first) => {
        if (first._tag === "Done") return Effect.flatMap(Effect.catchTag(first.exit, "Done", () => last(encoding.done())), start)
        pending = first.fiber
        return start([encoding.keepAlive])
      })
    })
  })

const cutOff = (response: ServerResponse, frames: Frames) => {
  if (!response.headersSent || response.writableEnded || response.destroyed) return
  for (const frame of frames.slice(0, -1)) response.write(frame)
  response.end(frames.at(-1))
}
