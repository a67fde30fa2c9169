import { type EmbeddingInput, inputCount } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult, EmbeddingVector } from "../../Domain/EmbeddingResult.ts"
import { estimatePromptTokens } from "../../Domain/EmbeddingTokens.ts"
import { isFloat32Base64 } from "../../Domain/EmbeddingVector.ts"
import { arr, num, rec } from "./OpenAiWire.ts"

/** Numbers, or base64 of whole float32 values; an array is judged by its first element, not scanned. */
const vectorOf = (value: unknown): EmbeddingVector | undefined => {
  if (typeof value === "string") return isFloat32Base64(value) ? value : undefined
  if (Array.isArray(value) && value.length > 0 && typeof value[0] === "number") return value as ReadonlyArray<number>
  return undefined
}

/**
 * The list object of an embeddings answer -> one vector per input, in input order (placed by
 * `index`, which compatible servers may omit). Returns what is wrong when the body is unusable.
 * Servers that report no usage get the gateway's estimate.
 * @see https://platform.openai.com/docs/api-reference/embeddings/object
 */
export const embeddingsFromOpenAi = (body: unknown, input: EmbeddingInput): EmbeddingResult | string => {
  const data = arr(rec(body)["data"])
  const count = inputCount(input)
  if (data.length !== count) return `expected ${count} embeddings, got ${data.length}`
  const vectors = new Array<EmbeddingVector | undefined>(count)
  for (const [position, item] of data.entries()) {
    const entry = rec(item)
    const index = num(entry["index"]) ?? position
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) return `bad or repeated index ${index}`
    const vector = vectorOf(entry["embedding"])
    if (vector === undefined) return `the embedding at index ${index} is neither numbers nor float32 base64`
    vectors[index] = vector
  }
  const promptTokens = num(rec(rec(body)["usage"])["prompt_tokens"])
  return { vectors: vectors as Array<EmbeddingVector>, promptTokens: promptTokens ?? estimatePromptTokens(input) }
}
