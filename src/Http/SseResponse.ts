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
import type { RequestMeter } from "../Services/Usage/UsageMeter.ts"
import { firstWithin, type IdleTicker, idleTicker } from "../Streams/KeepAlive.ts"
import { doneFrame, encodeDataBatch, errorFrame, keepAliveFrame } from "../Streams/SseEncoder.ts"
import { serverResponseOf } from "./NodeMessage.ts"
import { routeHeaders } from "./RouteHeaders.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

type Frames = Arr.NonEmptyReadonlyArray<Uint8Array>

/**
 * How a dialect frames its stream: a batch of objects as bytes, the frames that end a stream
 * normally (chat's `[DONE]`; none for Responses), those that replace the normal end when the
 * stream fails after it started, and the frames written when the server stops mid-stream.
 */
export interface SseFraming<C> {
  readonly encode: (batch: Arr.NonEmptyReadonlyArray<C>) => Uint8Array
  readonly done: ReadonlyArray<Uint8Array>
  readonly failed: (error: GatewayError) => ReadonlyArray<Uint8Array>
  readonly stopped: (message: string) => ReadonlyArray<Uint8Array>
}

/** Chat completions: `data:` frames, `[DONE]`, and the spec 6.6 error frame. */
export const chatFraming: SseFraming<unknown> = {
  encode: encodeDataBatch,
  done: [doneFrame],
  failed: (error) => [errorFrame(error.reason.message), doneFrame],
  stopped: (message) => [errorFrame(message), doneFrame]
}

/**
 * SSE for a stream. The first frame decides the answer: a failure before any byte is still a
 * proper HTTP error; after it, failures become the framing's failure frames. The stream is
 * pulled in the request's scope directly (`Stream.toPull` would re-provide every service to
 * every pull). A silent upstream gets keep-alive comments: as the first frame while nothing
 * was sent, then written beside the body (see KeepAlive.ts).
 */
export const streamResponse = <C>(chunks: Stream.Stream<C, GatewayError>, meter: RequestMeter, framing: SseFraming<C>) =>
  Effect.flatMap(Effect.context<GatewayConfigFile | Scope.Scope | HttpServerRequest.HttpServerRequest>(), (context) => {
    const keepAliveMs = Context.get(context, GatewayConfigFile).config.server.keepalive_seconds * 1000
    const scope = Context.get(context, Scope.Scope)
    return Effect.flatMap(Channel.toPullScoped(chunks.channel, scope), (pull) => {
      const encoded = Effect.map(pull, (batch): Frames => [framing.encode(batch)])
      let finished = false
      const last = (tail: ReadonlyArray<Uint8Array>): Effect.Effect<Frames, Cause.Done> => {
        finished = true
        return tail.length === 0 ? Cause.done() : Effect.succeed(tail as Frames)
      }
      const orEnding = (read: Effect.Effect<Frames, GatewayError | Cause.Done>) =>
        Effect.catch(read, (error) => (Cause.isDone(error) ? last(framing.done) : last(framing.failed(error))))
      let pending: Fiber.Fiber<Frames, GatewayError | Cause.Done> | undefined
      let ticker: IdleTicker | undefined
      const response = serverResponseOf(Context.get(context, HttpServerRequest.HttpServerRequest))
      // Built once per stream and run for every batch.
      const encodedOrEnding = orEnding(encoded)
      // After the first frame: the rest, then [DONE]; a failure becomes the error frame and [DONE].
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
      // grace ran out). The client gets the error frame and [DONE] before the close, written
      // straight to the socket, since the interrupted stream can emit nothing more.
      const restOrCut = response === undefined ? rest : Effect.onInterrupt(rest, () => Effect.sync(() => cutOff(response, framing)))
      const start = (first: Frames) => {
        let sent = false
        const body = Effect.suspend(() => {
          if (sent) return restOrCut
          sent = true
          return Effect.succeed(first)
        })
        const ready = HttpServerResponse.stream(Stream.fromPull(Effect.succeed(body)), {
          contentType: "text/event-stream",
          headers: { ...sseHeaders, ...routeHeaders(meter) }
        })
        if (response === undefined) return Effect.succeed(ready)
        // Keep-alives beside the body, on Node only.
        const beside = idleTicker(keepAliveMs, () => {
          if (response.headersSent && !response.writableEnded && !response.destroyed) response.write(keepAliveFrame)
        })
        ticker = beside
        return Effect.as(Scope.addFinalizer(scope, Effect.sync(beside.stop)), ready)
      }
      return Effect.flatMap(firstWithin(encoded, keepAliveMs, scope), (first) => {
        if (first._tag === "Done") {
          return Effect.flatMap(
            Effect.catchTag(first.exit, "Done", () => Effect.succeed(framing.done)),
            (frames) => frames.length === 0 ? Effect.succeed(HttpServerResponse.empty({ status: 200 })) : start(frames as Frames)
          )
        }
        pending = first.fiber
        return start([keepAliveFrame])
      })
    })
  })

const stoppedMessage = "The gateway stopped before this stream ended; retry the request."

const cutOff = <C>(response: ServerResponse, framing: SseFraming<C>) => {
  if (!response.headersSent || response.writableEnded || response.destroyed) return
  const frames = framing.stopped(stoppedMessage)
  for (const frame of frames.slice(0, -1)) response.write(frame)
  response.end(frames.at(-1))
}

