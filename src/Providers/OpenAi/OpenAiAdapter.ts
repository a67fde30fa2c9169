import { Effect, Redacted, Stream } from "effect"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse, streamFailure } from "../ProviderErrors.ts"
import { makeProviderHttp, sseEvents } from "../ProviderHttp.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { openAiRequestBody } from "./OpenAiRequest.ts"
import { completionFromOpenAi } from "./OpenAiResponse.ts"
import { initialOpenAiStreamState, openAiStreamStep } from "./OpenAiStream.ts"

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
    const url = `${config.base_url.replace(/\/+$/, "")}/chat/completions`
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") {
      const key = Redacted.value(config.api_key)
      headers[profile.authHeader] = profile.authScheme === "" ? key : `${profile.authScheme} ${key}`
    }
    const streamHeaders = { ...headers, accept: "text/event-stream" }

    const complete = Effect.fn("OpenAi.complete")(function* (request: ChatRequest, target: ChatTarget) {
      yield* Effect.annotateCurrentSpan({ "gen_ai.system": "openai", "gen_ai.request.model": target.upstreamModel })
      const body = yield* fromCodec(() => JSON.stringify(openAiRequestBody(request, target, profile, false)))
      const response = yield* http.postJson(url, headers, body)
      if (response.status < 200 || response.status >= 300) return yield* openAiError(config.id, response, response.text)
      let parsed: unknown
      try {
        parsed = JSON.parse(response.text)
      } catch {
        return yield* badResponse(config.id, "the body was not valid JSON")
      }
      const completion = completionFromOpenAi(parsed)
      if (completion === undefined) return yield* badResponse(config.id, "the body had no choices")
      return completion
    })

    const stream = (request: ChatRequest, target: ChatTarget): Stream.Stream<ChatStreamEvent, GatewayError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const body = yield* fromCodec(() => JSON.stringify(openAiRequestBody(request, target, profile, true)))
          const response = yield* http.postStream(url, streamHeaders, body)
          if (response.status < 200 || response.status >= 300) {
            const text = yield* response.body.pipe(Stream.decodeText(), Stream.mkString, Effect.orElseSucceed(() => ""))
            return yield* openAiError(config.id, response, text)
          }
          const state = initialOpenAiStreamState()
          let ended = false
          let finished = false
          return sseEvents(config.id, response.body).pipe(
            Stream.map((event) => openAiStreamStep(state, event.data)),
            Stream.takeWhile((step) => {
              if (step._tag === "Done") ended = true
              return step._tag !== "Done"
            }),
            Stream.mapEffect((step) =>
              step._tag === "Error"
                ? Effect.fail(streamFailure(config.id, step.message, step.code !== "invalid_request_error"))
                : Effect.succeed(step._tag === "Events" ? step.events : [])
            ),
            Stream.flattenIterable,
            Stream.tap((event) => Effect.sync(() => {
              if (event._tag === "Finish") finished = true
            })),
            // A connection that closes before [DONE] and before any finish reason lost data.
            Stream.concat(
              Stream.suspend(() =>
                ended || finished ? Stream.empty : Stream.fail(streamFailure(config.id, "the stream ended early", true))
              )
            )
          )
        }).pipe(Effect.withSpan("OpenAi.stream", { attributes: { "gen_ai.request.model": target.upstreamModel } }))
      )

    return { id: config.id, complete, stream } satisfies ChatProvider
  })
