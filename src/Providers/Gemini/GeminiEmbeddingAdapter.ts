import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult } from "../../Domain/EmbeddingResult.ts"
import { estimatePromptTokens } from "../../Domain/EmbeddingTokens.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { EmbeddingProvider, EmbeddingTarget } from "../EmbeddingProvider.ts"
import { fromCodec } from "../OpenAi/OpenAiAdapter.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import { type GeminiBatchEmbedBody, geminiEmbeddingBatches } from "./GeminiEmbeddingRequest.ts"
import { embeddingsFromGemini } from "./GeminiEmbeddingResponse.ts"
import { geminiError } from "./GeminiErrors.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/** Calls in flight for one request whose inputs span several 100-input batches. */
const batchConcurrency = 4

/**
 * Google Gemini through `models/{model}:batchEmbedContents`, authenticated with the
 * `x-goog-api-key` header, on its own connection pool like every embeddings adapter. Larger
 * requests are split into batches of 100 sent side by side; any failed batch fails the
 * request, which the router may then retry whole. Vectors come back as numbers.
 * @see https://ai.google.dev/api/embeddings
 */
export const makeGeminiEmbeddingProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const base = trimEndChars(config.base_url, "/")
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") headers["x-goog-api-key"] = Redacted.value(config.api_key)
    const spans = yield* optionalSpans

    const call = (url: string, batch: GeminiBatchEmbedBody) =>
      http.postJson(url, headers, JSON.stringify(batch)).pipe(
        Effect.flatMap((response) => jsonAnswer(config.id, response, geminiError)),
        Effect.flatMap((parsed) => {
          const vectors = embeddingsFromGemini(parsed, batch.requests.length)
          return typeof vectors === "string" ? Effect.fail(badResponse(config.id, vectors)) : Effect.succeed(vectors)
        })
      )

    const embed = (request: EmbeddingRequest, target: EmbeddingTarget): Effect.Effect<EmbeddingResult, GatewayError> =>
      Effect.flatMap(fromCodec(() => geminiEmbeddingBatches(request, target)), (batches) => {
        const url = `${base}/models/${encodeURIComponent(target.upstreamModel)}:batchEmbedContents`
        const vectors = batches.length === 1
          ? call(url, batches[0]!)
          : Effect.map(Effect.forEach(batches, (batch) => call(url, batch), { concurrency: batchConcurrency }), (parts) => parts.flat())
        return Effect.map(vectors, (all): EmbeddingResult => ({ vectors: all, promptTokens: estimatePromptTokens(request.input) }))
      }).pipe(spans.span("Gemini.embed", { attributes: { "gen_ai.system": "gemini", "gen_ai.request.model": target.upstreamModel } }))

    return { id: config.id, acceptsTokens: false, embed } satisfies EmbeddingProvider
  })
