import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult } from "../../Domain/EmbeddingResult.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { EmbeddingProvider, EmbeddingTarget } from "../EmbeddingProvider.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import { openAiEmbeddingBody } from "./OpenAiEmbeddingRequest.ts"
import { embeddingsFromOpenAi, parseEmbeddingAnswer } from "./OpenAiEmbeddingResponse.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/**
 * `POST {base_url}/embeddings` on OpenAI and every OpenAI-compatible server. Its own connection
 * pool, apart from the provider's chat pool, so large embedding batches never hold the
 * sockets chat streams wait for.
 */
export const makeOpenAiEmbeddingProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const profile = config.kind === "openai" ? profiles["openai"]! : profileFor(config.profile)
    const url = `${trimEndChars(config.base_url, "/")}/embeddings`
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") {
      const key = Redacted.value(config.api_key)
      headers[profile.authHeader] = profile.authScheme === "" ? key : `${profile.authScheme} ${key}`
    }
    const spans = yield* optionalSpans

    const embed = (request: EmbeddingRequest, target: EmbeddingTarget): Effect.Effect<EmbeddingResult, GatewayError> =>
      Effect.suspend(() =>
        http.postJson(url, headers, JSON.stringify(openAiEmbeddingBody(request, target))).pipe(
          Effect.flatMap((response) => jsonAnswer(config.id, response, openAiError, parseEmbeddingAnswer)),
          Effect.flatMap((answer) => {
            const result = embeddingsFromOpenAi(answer.body, request.input, answer.vectorTexts)
            return typeof result === "string" ? Effect.fail(badResponse(config.id, result)) : Effect.succeed(result)
          })
        )
      ).pipe(spans.span("OpenAi.embed", { attributes: { "gen_ai.system": "openai", "gen_ai.request.model": target.upstreamModel } }))

    // Token-id input is part of the OpenAI API; a compatible server that lacks it answers 400 itself.
    return { id: config.id, acceptsTokens: true, embed } satisfies EmbeddingProvider
  })
