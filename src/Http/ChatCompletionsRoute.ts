import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { decodeChatRequest } from "../Domain/ChatRequestDecoder.ts"
import { ChatCompletions } from "../Services/ChatCompletions.ts"
import { GatewayConfigFile } from "../Services/GatewayConfigLoader.ts"
import { openMeter, type RequestMeter } from "../Services/UsageMeter.ts"
import { withKeepAlive } from "../Streams/KeepAlive.ts"
import { doneFrame, encodeData, errorFrame, keepAliveFrame } from "../Streams/SseEncoder.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { statusOf } from "./ErrorResponse.ts"
import { CurrentRequestId } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"
import { route } from "./Route.ts"

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

const routeHeaders = (meter: RequestMeter): Record<string, string> =>
  meter.served === undefined
    ? {}
    : { "x-gateway-provider": meter.served.provider, "x-gateway-attempts": String(meter.log.attempts.length) }

const chatCompletions = authenticated(
  "chat",
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const meter = yield* openMeter({
      principal,
      endpoint: "chat",
      requestId: yield* CurrentRequestId
    })
    return yield* Effect.gen(function* () {
      const body = yield* readJsonObject
      const request = yield* decodeChatRequest(body)
      meter.requestedModel = request.model
      const result = yield* (yield* ChatCompletions).run(request, meter, principal.projectId)
      if (result._tag === "Json") return HttpServerResponse.jsonUnsafe(result.body, { headers: routeHeaders(meter) })

      const keepAliveMs = (yield* GatewayConfigFile).config.server.keepalive_seconds * 1000
      const bytes = withKeepAlive(Stream.map(result.chunks, encodeData), keepAliveMs, keepAliveFrame)
      // The first frame decides the answer: a failure before any byte is still a proper HTTP
      // error; after it, failures become the spec 6.6 error frame.
      const pull = yield* Stream.toPull(bytes)
      const first = yield* pull.pipe(
        Effect.catchTag("Done", () => Effect.succeed([doneFrame] as const))
      )
      const rest = Stream.fromPull(Effect.succeed(pull)).pipe(
        Stream.concat(Stream.make(doneFrame)),
        Stream.catch((error) => Stream.make(errorFrame(error.reason.message), doneFrame))
      )
      return HttpServerResponse.stream(Stream.concat(Stream.fromArray(first), rest), {
        contentType: "text/event-stream",
        headers: { ...sseHeaders, ...routeHeaders(meter) }
      })
    }).pipe(
      Effect.tapError((error) =>
        Effect.sync(() => {
          meter.status = statusOf(error.reason).status
        })
      )
    )
  })
)

export const chatRoutes = [route("POST", "/v1/chat/completions", chatCompletions)]
