import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { EmbeddingRequest } from "../../src/Domain/EmbeddingRequest.ts"
import { floatsToBase64 } from "../../src/Domain/EmbeddingVector.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { geminiEmbeddingBatches } from "../../src/Providers/Gemini/GeminiEmbeddingRequest.ts"
import { embeddingsFromGemini } from "../../src/Providers/Gemini/GeminiEmbeddingResponse.ts"
import { openAiEmbeddingBody } from "../../src/Providers/OpenAi/OpenAiEmbeddingRequest.ts"
import { embeddingsFromOpenAi } from "../../src/Providers/OpenAi/OpenAiEmbeddingResponse.ts"

const model = Schema.decodeUnknownSync(ModelConfig)({
  id: "emb",
  kind: "embedding",
  deployments: [{ provider: "p", model: "m" }],
  capabilities: { dimensions: 8, matryoshka: true }
})
const target = { upstreamModel: "up-emb", model }
const request = (fields: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: "emb",
  input: { _tag: "Text", texts: ["a", "b"] },
  encodingFormat: "base64",
  extra: {},
  ...fields
})
const thrown = (f: () => unknown) => {
  try {
    f()
  } catch (error) {
    if (error instanceof GatewayError && error.reason._tag === "InvalidRequest") return error.reason.param
  }
  throw new Error("expected a GatewayError")
}

describe("OpenAI embeddings codec", () => {
  it("asks for the client's format and shortens only when asked to", () => {
    expect(openAiEmbeddingBody(request({ dimensions: 8, user: "u" }), target)).toEqual({
      model: "up-emb",
      input: ["a", "b"],
      encoding_format: "base64",
      user: "u"
    })
    expect(openAiEmbeddingBody(request({ dimensions: 4, extra: { truncate: true } }), target)).toEqual({
      model: "up-emb",
      input: ["a", "b"],
      encoding_format: "base64",
      dimensions: 4,
      truncate: true
    })
  })

  it("places vectors by index and keeps each in the format it came in", () => {
    const b64 = floatsToBase64([1, 2])
    const body = { data: [{ index: 1, embedding: b64 }, { index: 0, embedding: [3, 4] }], usage: { prompt_tokens: 9 } }
    expect(embeddingsFromOpenAi(body, request().input)).toEqual({ vectors: [[3, 4], b64], promptTokens: 9 })
  })

  it("names what is wrong with an unusable body", () => {
    const input = request().input
    expect(embeddingsFromOpenAi({ data: [{ embedding: [1] }] }, input)).toBe("expected 2 embeddings, got 1")
    expect(embeddingsFromOpenAi({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] }, input)).toMatch(/repeated index 0/)
    expect(embeddingsFromOpenAi({ data: [{ embedding: [1] }, { embedding: "abc" }] }, input)).toMatch(/index 1 is neither/)
    expect(embeddingsFromOpenAi({ data: [{ embedding: [1] }, { embedding: [] }] }, input)).toMatch(/index 1/)
  })

  it("estimates usage when the server reports none", () => {
    const result = embeddingsFromOpenAi({ data: [{ embedding: [1] }, { embedding: [2] }] }, request().input)
    expect(typeof result === "string" ? result : result.promptTokens).toBe(2)
  })
})

describe("Gemini embeddings codec", () => {
  it("splits into batches of 100 with the model name and outputDimensionality", () => {
    const texts = Array.from({ length: 201 }, (_, i) => `t${i}`)
    const batches = geminiEmbeddingBatches(request({ input: { _tag: "Text", texts }, dimensions: 4, user: "u" }), target)
    expect(batches.map((b) => b.requests.length)).toEqual([100, 100, 1])
    expect(batches[2]!.requests[0]).toEqual({ model: "models/up-emb", content: { parts: [{ text: "t200" }] }, outputDimensionality: 4 })
    expect(geminiEmbeddingBatches(request(), target)[0]!.requests[0]).toEqual({ model: "models/up-emb", content: { parts: [{ text: "a" }] } })
  })

  it("refuses token ids and unknown fields by name", () => {
    expect(thrown(() => geminiEmbeddingBatches(request({ input: { _tag: "Tokens", tokens: [[1]] } }), target))).toBe("input")
    expect(thrown(() => geminiEmbeddingBatches(request({ extra: { input_type: "query" } }), target))).toBe("input_type")
  })

  it("reads the vectors and checks their count", () => {
    expect(embeddingsFromGemini({ embeddings: [{ values: [1, 2] }, { values: [3] }] }, 2)).toEqual([[1, 2], [3]])
    expect(embeddingsFromGemini({ embeddings: [{ values: [1] }] }, 2)).toBe("expected 2 embeddings, got 1")
    expect(embeddingsFromGemini({ embeddings: [{}] }, 1)).toMatch(/index 0 has no values/)
  })
})
