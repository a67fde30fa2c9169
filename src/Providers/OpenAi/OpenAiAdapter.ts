import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import type { ChatRequest, NativeRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp, sseEvents } from "../ProviderHttp.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { openAiEvents } from "./OpenAiEventStream.ts"
import { openAiRequestBody } from "./OpenAiRequest.ts"
import { completionFromOpenAi } from "./OpenAiResponse.ts"
import { completionFromResponsesApi, responsesApiBody } from "./OpenAiResponsesApi.ts"
import { responsesApiEvents } from "./OpenAiResponsesEvents.ts"
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
    // OpenAI itself also speaks the Responses API: a Responses request goes there as it is.
    const responsesUrl = config.kind === "openai" ? `${trimEndChars(config.base_url, "/")}/responses` : undefined
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

    const completeNatively = (native: NativeRequest, target: ChatTarget, responses: string, deadline: Deadline | undefined) =>
      fromCodec(() => JSON.stringify(responsesApiBody(native, target, false))).pipe(
        Effect.flatMap((body) => http.postJson(responses, headers, body, deadline)),
        Effect.flatMap((response) => jsonAnswer(config.id, response, openAiError)),
        Effect.flatMap((parsed): Effect.Effect<ChatCompletion, GatewayError> => {
          const completion = completionFromResponsesApi(parsed)
          return completion === undefined ? Effect.fail(badResponse(config.id, "the body was not a response")) : Effect.succeed(completion)
        }),
        traceComplete(target)
      )

    // Only a Responses request goes natively, and only to OpenAI itself (`kind: openai`).
    const nativeOf = (request: ChatRequest): NativeRequest | undefined =>
      responsesUrl !== undefined && request.native?.api === "openai-responses" ? request.native : undefined

    const complete = (request: ChatRequest, target: ChatTarget, deadline?: Deadline) => {
      const native = nativeOf(request)
      return native !== undefined && responsesUrl !== undefined
        ? completeNatively(native, target, responsesUrl, deadline)
        : completeTranslated(request, target, deadline)
    }

    const completeTranslated = (request: ChatRequest, target: ChatTarget, deadline: Deadline | undefined) =>
      Effect.suspend(() => {
        let body: string
        try {
          body = JSON.stringify(openAiRequestBody(request, target, profile, false))
        } catch (error) {
          return Effect.fail(error instanceof GatewayError ? error : GatewayError.internal(String(error)))
        }
        return http.postJson(url, headers, body, deadline).pipe(
          Effect.flatMap((response) => jsonAnswer(config.id, response, openAiError)),
          Effect.flatMap((parsed): Effect.Effect<ChatCompletion, GatewayError> => {
            const completion = completionFromOpenAi(parsed)
            if (completion === undefined) return Effect.fail(badResponse(config.id, "the body had no choices"))
            return Effect.succeed(completion)
          })
        )
      }).pipe(traceComplete(target))

    // A plain chain rather than a generator: this runs before every stream's upstream request.
    const stream = (request: ChatRequest, target: ChatTarget): Stream.Stream<ChatStreamEvent, GatewayError> => {
      const native = nativeOf(request)
      const endpoint = native === undefined || responsesUrl === undefined ? url : responsesUrl
      const events = native === undefined ? openAiEvents : responsesApiEvents
      return Stream.unwrap(
        fromCodec(() => JSON.stringify(native === undefined ? openAiRequestBody(request, target, profile, true) : responsesApiBody(native, target, true))).pipe(
          Effect.flatMap((body) => http.postStream(endpoint, streamHeaders, body)),
          Effect.flatMap((response): Effect.Effect<Stream.Stream<ChatStreamEvent, GatewayError>, GatewayError> => {
            if (response.status >= 200 && response.status < 300) return Effect.succeed(events(config.id, sseEvents(config.id, response.body)))
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
    }

    return { id: config.id, complete, stream } satisfies ChatProvider
  })
