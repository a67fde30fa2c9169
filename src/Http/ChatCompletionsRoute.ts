import { type Array as Arr, Cause, Channel, Context, Effect, Scope, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { decodeChatRequest } from "../Domain/ChatRequestDecoder.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { ChatCompletions } from "../Services/ChatCompletions.ts"
import { GatewayConfigFile } from "../Services/GatewayConfigLoader.ts"
import { openMeter, type RequestMeter } from "../Services/UsageMeter.ts"
import type { ChunkWire } from "../Streams/ChunkNormaliser.ts"
import { withKeepAlive } from "../Streams/KeepAlive.ts"
import { doneFrame, encodeDataBatch, errorFrame, keepAliveFrame } from "../Streams/SseEncoder.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { statusOf } from "./ErrorResponse.ts"
import { CurrentRequestId } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

/**
 * SSE for a chat stream. The first frame decides the answer: a failure before any byte is
 * still a proper HTTP error; after it, failures become the spec 6.6 error frame. The stream is
 * pulled in the request's scope directly (`Stream.toPull` would re-provide every service to
 * every pull).
 */
const streamResponse = (chunks: Stream.Stream<ChunkWire, GatewayError>, meter: RequestMeter) =>
  Effect.flatMap(Effect.context<GatewayConfigFile | Scope.Scope>(), (context) => {
    const keepAliveMs = Context.get(context, GatewayConfigFile).config.server.keepalive_seconds * 1000
    const frames = withKeepAlive(chunks, keepAliveMs, keepAliveFrame, encodeDataBatch)
    return Effect.flatMap(Channel.toPullScoped(frames.channel, Context.get(context, Scope.Scope)), (pull) => {
      let finished = false
      const last = (...tail: Arr.NonEmptyReadonlyArray<Uint8Array>) => {
        finished = true
        return Effect.succeed(tail)
      }
      // After the first frame: the rest, then [DONE]; a failure becomes the error frame and [DONE].
      const rest = Effect.suspend(() =>
        finished
          ? Cause.done()
          : Effect.catch(pull, (error) => (Cause.isDone(error) ? last(doneFrame) : last(errorFrame(error.reason.message), doneFrame)))
      )
      return Effect.map(
        Effect.catchTag(pull, "Done", () => last(doneFrame)),
        (first) => {
          let sent = false
          const body = Effect.suspend(() => {
            if (sent) return rest
            sent = true
            return Effect.succeed(first)
          })
          return HttpServerResponse.stream(Stream.fromPull(Effect.succeed(body)), {
            contentType: "text/event-stream",
            headers: { ...sseHeaders, ...routeHeaders(meter) }
          })
        }
      )
    })
  })

// Written as a chain rather than a generator: this runs on every request, and each step of a
// generator costs an iterator round trip.
const chatCompletions = authenticated(
  "chat",
  Effect.flatMap(Effect.context<CurrentPrincipal | ChatCompletions>(), (context) => {
    const principal = Context.get(context, CurrentPrincipal)
    const chat = Context.get(context, ChatCompletions)
    const requestId = Context.get(context, CurrentRequestId)
    return Effect.flatMap(openMeter({ principal, endpoint: "chat", requestId }), (meter) =>
      readJsonObject.pipe(
        Effect.flatMap(decodeChatRequest),
        Effect.flatMap((request) => {
          meter.requestedModel = request.model
          return chat.run(request, meter, principal.projectId)
        }),
        Effect.flatMap((result) =>
          result._tag === "Json"
            ? Effect.succeed(HttpServerResponse.jsonUnsafe(result.body, { headers: routeHeaders(meter) }))
            : streamResponse(result.chunks, meter)
        ),
        Effect.tapError((error) =>
          Effect.sync(() => {
            meter.status = statusOf(error.reason).status
          })
        )
      ))
  })
)

export const chatRoutes = [route("POST", "/v1/chat/completions", chatCompletions)]
