import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { ChatRequest, NativeRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import { fromCodec } from "../OpenAi/OpenAiAdapter.ts"
import { badResponse, streamFailure } from "../ProviderErrors.ts"
import { makeProviderHttp, sseEvents } from "../ProviderHttp.ts"
import { anthropicError } from "./AnthropicErrors.ts"
import { anthropicRequestBody } from "./AnthropicRequest.ts"
import { completionFromAnthropic } from "./AnthropicResponse.ts"
import { countTokensBody, isNativeMessages, initialNativeStreamState, nativeMessagesBody, nativeStreamStep } from "./AnthropicNative.ts"
import { type AnthropicStreamStep, anthropicStreamStep, initialAnthropicStreamState } from "./AnthropicStream.ts"
import { anthropicVersion } from "./AnthropicWire.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/**
 * Anthropic's Messages API: `POST {base_url}/messages` with the key in `x-api-key` and the API
 * version pinned. No beta header is needed for anything this adapter sends; one can be added
 * through the provider's `headers` if a deployment wants it.
 * @see https://platform.claude.com/docs/en/api/overview#authentication
 * @see https://platform.claude.com/docs/en/api/versioning
 */
export const makeAnthropicProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const url = `${trimEndChars(config.base_url, "/")}/messages`
    const headers: Record<string, string> = {
      ...config.headers,
      "anthropic-version": anthropicVersion,
      accept: "application/json"
    }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") headers["x-api-key"] = Redacted.value(config.api_key)
    const streamHeaders = { ...headers, accept: "text/event-stream" }

    const complete = Effect.fn("Anthropic.complete")(function* (request: ChatRequest, target: ChatTarget, deadline?: Deadline) {
      yield* Effect.annotateCurrentSpan({ "gen_ai.system": "anthropic", "gen_ai.request.model": target.upstreamModel })
      const native = request.native
      const body = isNativeMessages(native)
        ? nativeMessagesBody(native, target, false)
        : yield* fromCodec(() => JSON.stringify(anthropicRequestBody(request, target, false)))
      const sent = isNativeMessages(native) && native.headers !== undefined ? { ...native.headers, ...headers } : headers
      const parsed = yield* jsonAnswer(config.id, yield* http.postJson(url, sent, body, deadline), anthropicError)
      const completion = completionFromAnthropic(parsed)
      if (completion === undefined) return yield* badResponse(config.id, "the body was not a message")
      return isNativeMessages(native) ? { ...completion, native: parsed as Record<string, unknown> } : completion
    })

    const stream = (request: ChatRequest, target: ChatTarget): Stream.Stream<ChatStreamEvent, GatewayError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const native = request.native
          const body = isNativeMessages(native)
            ? nativeMessagesBody(native, target, true)
            : yield* fromCodec(() => JSON.stringify(anthropicRequestBody(request, target, true)))
          const sent = isNativeMessages(native) && native.headers !== undefined ? { ...native.headers, ...streamHeaders } : streamHeaders
          const response = yield* http.postStream(url, sent, body)
          if (response.status < 200 || response.status >= 300) {
            const text = yield* response.body.pipe(Stream.decodeText(), Stream.mkString, Effect.orElseSucceed(() => ""))
            return yield* anthropicError(config.id, response, text)
          }
          let step: (event: string, data: string) => AnthropicStreamStep
          if (isNativeMessages(native)) {
            const state = initialNativeStreamState()
            step = (event, data) => nativeStreamStep(state, event, data)
          } else {
            const state = initialAnthropicStreamState()
            step = (event, data) => anthropicStreamStep(state, event, data)
          }
          let ended = false
          return sseEvents(config.id, response.body).pipe(
            Stream.map((event) => step(event.event, event.data)),
            Stream.takeUntil((next) => {
              if (next._tag === "Done") ended = true
              return next._tag === "Done"
            }),
            Stream.mapEffect((step) => {
              switch (step._tag) {
                case "Done":
                  return Effect.succeed(step.events ?? [])
                case "Error":
                  return Effect.fail(streamFailure(config.id, `${step.type ?? "error"}: ${step.message}`, step.retryable))
                case "Malformed":
                  return Effect.fail(badResponse(config.id, "a stream event was not valid JSON"))
                case "Events":
                  return Effect.succeed(step.events)
              }
            }),
            Stream.flattenIterable,
            // A connection that closes before `message_stop` is broken, even after a stop reason.
            Stream.concat(
              Stream.suspend(() =>
                ended ? Stream.empty : Stream.fail(streamFailure(config.id, "the stream ended early", true))
              )
            )
          )
        }).pipe(Effect.withSpan("Anthropic.stream", { attributes: { "gen_ai.request.model": target.upstreamModel } }))
      )

    /**
     * `POST /messages/count_tokens` with the client's body (model set, generation fields left out,
     * as that endpoint takes none of them).
     * @see https://platform.claude.com/docs/en/api/messages/count_tokens
     */
    const countUrl = `${url}/count_tokens`
    const countTokens = Effect.fn("Anthropic.countTokens")(function* (native: NativeRequest, target: ChatTarget) {
      const body = JSON.stringify(countTokensBody(native, target))
      const sent = native.headers === undefined ? headers : { ...native.headers, ...headers }
      const parsed = yield* jsonAnswer(config.id, yield* http.postJson(countUrl, sent, body), anthropicError)
      const count = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>)["input_tokens"] : undefined
      if (typeof count !== "number") return yield* badResponse(config.id, "the body had no input_tokens")
      return count
    })

    return { id: config.id, complete, stream, countTokens } satisfies ChatProvider
  })
