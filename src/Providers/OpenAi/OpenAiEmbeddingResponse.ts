import { type EmbeddingInput, inputCount } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult, EmbeddingVector } from "../../Domain/EmbeddingResult.ts"
import { estimatePromptTokens } from "../../Domain/EmbeddingTokens.ts"
import { isFloat32Base64, keepJsonText } from "../../Domain/EmbeddingVector.ts"
import { arr, num, rec } from "./OpenAiWire.ts"

/** Numbers, or base64 of whole float32 values; an array is judged by its first element, not scanned. */
const vectorOf = (value: unknown): EmbeddingVector | undefined => {
  if (typeof value === "string") return isFloat32Base64(value) ? value : undefined
  if (Array.isArray(value) && value.length > 0 && typeof value[0] === "number") return value as ReadonlyArray<number>
  return undefined
}

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9

/**
 * The text of every array that follows an `"embedding"` key, in order. JSON escapes a quote
 * inside a string, so the key cannot be matched inside a value; an array of numbers holds no
 * `]` of its own. Run only on text that parsed as JSON.
 */
export const embeddingArraysText = (text: string): Array<string> => {
  const out: Array<string> = []
  for (let from = 0; ;) {
    const at = text.indexOf('"embedding"', from)
    if (at === -1) return out
    let i = at + 11
    while (isSpace(text.charCodeAt(i))) i++
    from = i
    // `"object": "embedding"` is a value, not the key.
    if (text.charCodeAt(i) !== 58) continue
    i++
    while (isSpace(text.charCodeAt(i))) i++
    from = i
    // A base64 string: nothing to keep.
    if (text.charCodeAt(i) !== 91) continue
    const end = text.indexOf("]", i)
    if (end === -1) return out
    out.push(text.slice(i, end + 1))
    from = end + 1
  }
}

// A span is kept only when its first and last numbers are the parsed vector's: a body with an
// `"embedding"` key somewhere else (a vendor's extra field) is then formatted as before.
const sameEnds = (span: string, vector: ReadonlyArray<number>): boolean => {
  const firstComma = span.indexOf(",")
  const lastComma = span.lastIndexOf(",")
  const first = Number(span.slice(1, firstComma === -1 ? -1 : firstComma))
  const last = Number(span.slice(lastComma === -1 ? 1 : lastComma + 1, -1))
  return first === vector[0] && last === vector[vector.length - 1]
}

/**
 * The list object of an embeddings answer -> one vector per input, in input order (placed by
 * `index`, which compatible servers may omit). Returns what is wrong when the body is unusable.
 * Servers that report no usage get the gateway's estimate. With the body's `text`, each vector
 * of numbers keeps the text it came in (see `keepJsonText`).
 * @see https://platform.openai.com/docs/api-reference/embeddings/object
 */
export const embeddingsFromOpenAi = (body: unknown, input: EmbeddingInput, text?: string): EmbeddingResult | string => {
  const data = arr(rec(body)["data"])
  const count = inputCount(input)
  if (data.length !== count) return `expected ${count} embeddings, got ${data.length}`
  const spans = text === undefined ? [] : embeddingArraysText(text)
  const vectors = new Array<EmbeddingVector | undefined>(count)
  for (const [position, item] of data.entries()) {
    const entry = rec(item)
    const index = num(entry["index"]) ?? position
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) return `bad or repeated index ${index}`
    const vector = vectorOf(entry["embedding"])
    if (vector === undefined) return `the embedding at index ${index} is neither numbers nor float32 base64`
    const span = spans[position]
    if (typeof vector !== "string" && span !== undefined && spans.length === count && sameEnds(span, vector)) keepJsonText(vector, span)
    vectors[index] = vector
  }
  const promptTokens = num(rec(rec(body)["usage"])["prompt_tokens"])
  return { vectors: vectors as Array<EmbeddingVector>, promptTokens: promptTokens ?? estimatePromptTokens(input) }
}
