import type { EmbeddingFormat } from "./EmbeddingRequest.ts"
import type { EmbeddingResult } from "./EmbeddingResult.ts"
import { vectorIn, vectorJson } from "./EmbeddingVector.ts"

/** A provider's vectors as the list object of spec 2.7, in the client's format, under the model used. */
export const embeddingsToWire = (result: EmbeddingResult, envelope: { readonly model: string; readonly format: EmbeddingFormat }) => ({
  object: "list" as const,
  data: result.vectors.map((vector, index) => ({ object: "embedding" as const, index, embedding: vectorIn(vector, envelope.format) })),
  model: envelope.model,
  usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens }
})

/**
 * `JSON.stringify` of that list object, with each vector written by `vectorJson`: a vector
 * whose upstream text was kept is copied, not formatted again.
 */
export const embeddingsWireJson = (body: ReturnType<typeof embeddingsToWire>): string => {
  const data = body.data.map((item) => `{"object":"embedding","index":${item.index},"embedding":${vectorJson(item.embedding)}}`)
  return `{"object":"list","data":[${data.join(",")}],"model":${JSON.stringify(body.model)},"usage":${JSON.stringify(body.usage)}}`
}
