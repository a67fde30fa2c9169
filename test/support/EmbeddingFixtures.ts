import type { RecordedRequest, Reply } from "./FakeUpstream.ts"

/**
 * Fake embeddings upstreams speaking the real wire formats: OpenAI's `POST /embeddings` list
 * object, and Gemini's `batchEmbedContents`. Vectors are derived from the input, so a test can
 * compute what any input should come back as.
 */

/** A vector for one input; `0.1` is not exact in float32, so conversions show. */
export const vectorFor = (input: string | ReadonlyArray<number>, dimensions = 4): Array<number> => {
  const size = typeof input === "string" ? input.length : input.reduce((a, b) => a + b, 0)
  const full = [size / 4, -0.5, 0.1, 1 / 3, 0.25, -2, 1e-3, 7]
  return Array.from({ length: dimensions }, (_, i) => full[i % full.length]! + Math.floor(i / full.length))
}

export const float32Base64 = (values: ReadonlyArray<number>): string => Buffer.from(Float32Array.from(values).buffer).toString("base64")

const inputsOf = (input: unknown): Array<string | Array<number>> =>
  typeof input === "string" ? [input] : Array.isArray(input) && typeof input[0] === "number" ? [input as Array<number>] : (input as Array<string | Array<number>>)

export interface OpenAiEmbeddingsOptions {
  /** Answer floats whatever `encoding_format` asked (some compatible servers do). */
  readonly alwaysFloat?: boolean
  /** Answer base64 whatever `encoding_format` asked. */
  readonly alwaysBase64?: boolean
  /** Leave `usage` out, as some compatible servers do. */
  readonly noUsage?: boolean
}

/** OpenAI's answer to the recorded request: one vector per input, in the asked encoding. */
export const openAiEmbeddings = (options: OpenAiEmbeddingsOptions = {}) => (request: RecordedRequest): Reply => {
  const body = request.body as { model: string; input: unknown; encoding_format?: string; dimensions?: number }
  const base64 = options.alwaysBase64 === true || (options.alwaysFloat !== true && body.encoding_format === "base64")
  const inputs = inputsOf(body.input)
  const tokens = inputs.reduce((n, input) => n + (typeof input === "string" ? input.split(" ").length : input.length), 0)
  return {
    kind: "json",
    status: 200,
    body: {
      object: "list",
      data: inputs.map((input, index) => {
        const vector = vectorFor(input, body.dimensions ?? 4)
        return { object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector }
      }),
      model: `${body.model}-2024`,
      ...(options.noUsage === true ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } })
    }
  }
}

/** Gemini's `batchEmbedContents` answer: `{ embeddings: [{ values }] }`, floats only, no usage. */
export const geminiEmbeddings = (request: RecordedRequest): Reply => {
  const body = request.body as { requests: Array<{ content: { parts: Array<{ text: string }> }; outputDimensionality?: number }> }
  return {
    kind: "json",
    status: 200,
    body: { embeddings: body.requests.map((r) => ({ values: vectorFor(r.content.parts[0]!.text, r.outputDimensionality ?? 8) })) }
  }
}
