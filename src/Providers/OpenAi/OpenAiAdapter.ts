import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp, sseEvents } from "../ProviderHttp.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { openAiEvents } from "./OpenAiEventStream.ts"
import { openAiRequestBody } from "./OpenAiRequest.ts"
import { completionFromOpenAi } from "./OpenAiResponse.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/** Runs a pure codec that reports client mistakes by throwing a GatewayError. */
export const fromCodec = <A>(f: () => A): Effect.Effect<A, GatewayError> =>
  Effect.try({
    try: f,
    catch: (error) => (error instanceof GatewayError ? error : GatewayError.internal(String(error)))
  })

/**
 * OpenAI and every OpenAI-compatible server: one adapter, with the differences carried by the
 * provider's profile.
 */
export const makeOpenAiProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const profile = config.kind === "openai" ? profiles["openai"]! : profileFor(config.profile)
    const url = `${trimEndChars(config.base_url, "/")}/chat/completions`
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") {
      const key = Redacted.value(config.api_key)
      headers[profile.authHeader] = profile.authScheme === "" ? key : `${profile.authScheme} ${key}`
    }
    const streamHeaders = { ...headers, accept: "text/event-stream" }

    const spans = yield* optionalSpans
    // With a tracer installed, every call is an `OpenAi.complete` span naming the upstream model.
    const traceComplete = (target: ChatTarget) => <A, E>(self: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      spans.enabled
        ? Effect.annotateCurrentSpan({ "gen_ai.system": "openai", "gen_ai.request.model": target.upstreamModel }).pipe(
          Effect.andThen(self),
          spans.span("OpenAi.complete")
        )
        : self

    const complete = (request: ChatRequest, target: ChatTarget) =>
      Effect.suspend(() => {
        let body: string
        try {
          body = JSON.stringify(openAiRequestBody(request, target, profile, false))
        } catch (error) {
          return Effect.fail(error instanceof GatewayError ? error : GatewayError.internal(String(error)))
        }
        return http.postJson(url, headers, body).pipe(
          Effect.flatMap((response) => jsonAnswer(config.id, response, openAiError)),
          Effect.flatMap((parsed): Effect.Effect<ChatCompletion, GatewayError> => {
            const completion = completionFromOpenAi(parsed)
            if (completion === undefined) return Effect.fail(badResponse(config.id, "the body had no choices"))
            return Effect.succeed(completion)
          })
        )
      }).pipe(traceComplete(target))

    // A plain chain rather than a generator: this runs before every stream's upstream request.
    const stream = (request: ChatRequest, target: ChatTarget): Stream.Stream<ChatStreamEvent, GatewayError> =>
      Stream.unwrap(
        fromCodec(() => JSON.stringify(openAiRequestBody(request, target, profile, true))).pipe(
          Effect.flatMap((body) => http.postStream(url, streamHeaders, body)),
          Effect.flatMap((response): Effect.Effect<Stream.Stream<ChatStreamEvent, GatewayError>, GatewayError> => {
            if (response.status >= 200 && response.status < 300) return Effect.succeed(openAiEvents(config.id, sseEvents(config.id, response.body)))
            return response.body.pipe(
              Stream.decodeText(),
              Stream.mkString,
              Effect.orElseSucceed(() => ""),
              Effect.flatMap((text) => Effect.fail(openAiError(config.id, response, text)))
            )
          }),
          spans.span("OpenAi.stream", { attributes: { "gen_ai.request.model": target.upstreamModel } })
        )
      )

    return { id: config.id, honoursDeadline: true, complete, stream } satisfies ChatProvider
  })
