import { arr, rec } from "./GeminiWire.ts"

/**
 * A `batchEmbedContents` answer -> its vectors, in request order, or what is wrong with it.
 * Gemini reports no token usage here; the adapter estimates it.
 * @see https://ai.google.dev/api/embeddings#BatchEmbedContentsResponse
 */
export const embeddingsFromGemini = (body: unknown, expected: number): ReadonlyArray<ReadonlyArray<number>> | string => {
  const embeddings = arr(rec(body)["embeddings"])
  if (embeddings.length !== expected) return `expected ${expected} embeddings, got ${embeddings.length}`
  const vectors: Array<ReadonlyArray<number>> = []
  for (const [i, embedding] of embeddings.entries()) {
    const values = rec(embedding)["values"]
    // Judged by the first element, not scanned: a batch can hold millions of numbers.
    if (!Array.isArray(values) || values.length === 0 || typeof values[0] !== "number") return `the embedding at index ${i} has no values`
    vectors.push(values as ReadonlyArray<number>)
  }
  return vectors
}
