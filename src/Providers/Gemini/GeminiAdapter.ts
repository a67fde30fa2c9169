import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import { fromCodec } from "../OpenAi/OpenAiAdapter.ts"
import { badResponse, streamFailure } from "../ProviderErrors.ts"
import { makeProviderHttp, sseEvents } from "../ProviderHttp.ts"
import { geminiError } from "./GeminiErrors.ts"
import { geminiRequestBody } from "./GeminiRequest.ts"
import { completionFromGemini } from "./GeminiResponse.ts"
import { geminiStreamComplete, geminiStreamStep, initialGeminiStreamState } from "./GeminiStream.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/**
 * Google Gemini through `models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`, authenticated with the `x-goog-api-key` header.
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/gemini-api/docs/api-key
 */
export const makeGeminiProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const base = trimEndChars(config.base_url, "/")
    const url = (model: string, method: string) => `${base}/models/${encodeURIComponent(model)}:${method}`
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") headers["x-goog-api-key"] = Redacted.value(config.api_key)
    const streamHeaders = { ...headers, accept: "text/event-stream" }

    const complete = Effect.fn("Gemini.complete")(function* (request: ChatRequest, target: ChatTarget, deadline?: Deadline) {
      yield* Effect.annotateCurrentSpan({ "gen_ai.system": "gemini", "gen_ai.request.model": target.upstreamModel })
      const body = yield* fromCodec(() => JSON.stringify(geminiRequestBody(request, target)))
      const parsed = yield* jsonAnswer(config.id, yield* http.postJson(url(target.upstreamModel, "generateContent"), headers, body, deadline), geminiError)
      const completion = completionFromGemini(parsed, request.n)
      if (completion === undefined) return yield* badResponse(config.id, "the body had no candidates")
      yield* Effect.annotateCurrentSpan({
        "gen_ai.usage.input_tokens": completion.usage.promptTokens,
        "gen_ai.usage.output_tokens": completion.usage.completionTokens
      })
      return completion
    })

    const stream = (request: ChatRequest, target: ChatTarget): Stream.Stream<ChatStreamEvent, GatewayError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const body = yield* fromCodec(() => JSON.stringify(geminiRequestBody(request, target)))
          const response = yield* http.postStream(url(target.upstreamModel, "streamGenerateContent?alt=sse"), streamHeaders, body)
          if (response.status < 200 || response.status >= 300) {
            const text = yield* response.body.pipe(Stream.decodeText(), Stream.mkString, Effect.orElseSucceed(() => ""))
            return yield* geminiError(config.id, response, text)
          }
          const state = initialGeminiStreamState(request.n)
          return sseEvents(config.id, response.body).pipe(
            Stream.mapEffect((event) => {
              const step = geminiStreamStep(state, event.data)
              return step._tag === "Error"
                ? Effect.fail(streamFailure(config.id, step.message, step.retryable))
                : Effect.succeed(step.events)
            }),
            Stream.flattenIterable,
            // Gemini ends a stream by closing it; one that closes before every candidate finished lost data.
            Stream.concat(
              Stream.suspend(() =>
                geminiStreamComplete(state) ? Stream.empty : Stream.fail(streamFailure(config.id, "the stream ended early", true))
              )
            )
          )
        }).pipe(Effect.withSpan("Gemini.stream", { attributes: { "gen_ai.system": "gemini", "gen_ai.request.model": target.upstreamModel } }))
      )

    return { id: config.id, complete, stream } satisfies ChatProvider
  })
