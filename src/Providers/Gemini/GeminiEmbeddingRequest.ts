import { advisoryFields } from "../../Domain/ChatRequest.ts"
import { upstreamDimensions } from "../../Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { EmbeddingTarget } from "../EmbeddingProvider.ts"

/** `batchEmbedContents` refuses more than 100 requests in one call ("at most 100 requests can be in one batch"). */
export const geminiEmbeddingBatchSize = 100

/** @see https://ai.google.dev/api/embeddings#EmbedContentRequest */
export interface GeminiEmbedContentRequest {
  readonly model: string
  readonly content: { readonly parts: ReadonlyArray<{ readonly text: string }> }
  readonly outputDimensionality?: number
}

/** @see https://ai.google.dev/api/embeddings#method:-models.batchembedcontents */
export interface GeminiBatchEmbedBody {
  readonly requests: ReadonlyArray<GeminiEmbedContentRequest>
}

/**
 * The bodies of `models/{model}:batchEmbedContents`, at most 100 inputs each, in input order.
 * Throws a GatewayError naming the field for what Gemini cannot take: token-id input (its API
 * embeds text only) and top-level fields the gateway does not model (`user` is advisory and
 * not sent).
 */
export const geminiEmbeddingBatches = (request: EmbeddingRequest, target: EmbeddingTarget): ReadonlyArray<GeminiBatchEmbedBody> => {
  if (request.input._tag === "Tokens") {
    throw GatewayError.invalid("Token-id arrays are not supported by this model; send the input as text.", "input", "unsupported_input")
  }
  for (const key of Object.keys(request.extra)) {
    if (!advisoryFields.has(key)) throw GatewayError.invalid(`'${key}' is not supported by this model.`, key, "unsupported_parameter")
  }
  const model = `models/${target.upstreamModel}`
  const dimensions = upstreamDimensions(request, target.model)
  const texts = request.input.texts
  const batches: Array<GeminiBatchEmbedBody> = []
  for (let start = 0; start < texts.length; start += geminiEmbeddingBatchSize) {
    const requests = texts.slice(start, start + geminiEmbeddingBatchSize).map((text): GeminiEmbedContentRequest => ({
      model,
      content: { parts: [{ text }] },
      ...(dimensions === undefined ? {} : { outputDimensionality: dimensions })
    }))
    batches.push({ requests })
  }
  return batches
}
