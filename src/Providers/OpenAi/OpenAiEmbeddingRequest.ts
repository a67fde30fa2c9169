import { upstreamDimensions } from "../../Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingTarget } from "../EmbeddingProvider.ts"

/**
 * The body of `POST /embeddings`. The client's `encoding_format` is asked for, so an upstream
 * that honours it answers in the format the client gets and nothing is converted. Fields the
 * gateway does not model go through unchanged, as for chat.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
export const openAiEmbeddingBody = (request: EmbeddingRequest, target: EmbeddingTarget): Record<string, unknown> => {
  const dimensions = upstreamDimensions(request, target.model)
  return {
    ...request.extra,
    model: target.upstreamModel,
    input: request.input._tag === "Text" ? request.input.texts : request.input.tokens,
    encoding_format: request.encodingFormat,
    ...(dimensions === undefined ? {} : { dimensions }),
    ...(request.user === undefined ? {} : { user: request.user })
  }
}
