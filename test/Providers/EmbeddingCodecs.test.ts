import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { EmbeddingRequest } from "../../src/Domain/EmbeddingRequest.ts"
import { embeddingsToWire, embeddingsWireJson } from "../../src/Domain/EmbeddingResultWire.ts"
import { floatsToBase64, vectorJson } from "../../src/Domain/EmbeddingVector.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { geminiEmbeddingBatches } from "../../src/Providers/Gemini/GeminiEmbeddingRequest.ts"
import { embeddingsFromGemini } from "../../src/Providers/Gemini/GeminiEmbeddingResponse.ts"
import { openAiEmbeddingBody } from "../../src/Providers/OpenAi/OpenAiEmbeddingRequest.ts"
import { embeddingArraysText, embeddingsFromOpenAi } from "../../src/Providers/OpenAi/OpenAiEmbeddingResponse.ts"

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

describe("OpenAI embeddings: the upstream's text of each vector is passed on", () => {
  const input = { _tag: "Text" as const, texts: ["a", "b"] }
  const answer = (space: string) =>
    `{${space}"object":${space}"list",${space}"data":${space}[` +
    `{${space}"object":${space}"embedding",${space}"index":${space}1,${space}"embedding"${space}:${space}[0.5,${space}-1e-7,${space}3.0]},` +
    `{"object":"embedding","index":0,"embedding":[${space}2.25${space}]}` +
    `],${space}"model":"m",${space}"usage":{"prompt_tokens":3,"total_tokens":3}}`

  it("finds the array after each embedding key, compact or spaced, and skips the value \"embedding\"", () => {
    expect(embeddingArraysText(answer(""))).toEqual(["[0.5,-1e-7,3.0]", "[2.25]"])
    expect(embeddingArraysText(answer(" \n"))).toEqual(["[0.5, \n-1e-7, \n3.0]", "[ \n2.25 \n]"])
    expect(embeddingArraysText('{"data":[{"object":"embedding","embedding":"AACAPw=="}]}')).toEqual([])
  })

  it("keeps each vector's text, placed by index, and writes it unchanged", () => {
    for (const space of ["", " \n"]) {
      const text = answer(space)
      const result = embeddingsFromOpenAi(JSON.parse(text), input, text)
      if (typeof result === "string") throw new Error(result)
      expect(result.vectors).toEqual([[2.25], [0.5, -1e-7, 3]])
      const json = embeddingsWireJson(embeddingsToWire(result, { model: "emb", format: "float" }))
      expect(json).toContain(`"embedding":${embeddingArraysText(text)[0]}`)
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(embeddingsToWire(result, { model: "emb", format: "float" }))))
    }
  })

  it("formats the vectors itself when another field is called embedding", () => {
    const b64 = floatsToBase64([1, 2])
    const keep = (text: string) => {
      const result = embeddingsFromOpenAi(JSON.parse(text), input, text)
      if (typeof result === "string") throw new Error(result)
      return result.vectors.map(vectorJson)
    }
    // Spaced, so a kept text and a formatted vector differ.
    expect(keep('{"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}]}')).toEqual(["[1, 2]", "[3, 4]"])
    // One array too many: nothing is kept.
    expect(keep('{"meta":{"embedding":[9, 9]},"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}]}')).toEqual(["[1,2]", "[3,4]"])
    // As many arrays as vectors, but the second is someone else's: its ends differ, so it is formatted.
    expect(keep(`{"data":[{"embedding":"${b64}"},{"embedding":[3, 4]}],"meta":{"embedding":[7, 8]}}`)).toEqual([`"${b64}"`, "[3,4]"])
  })

  // Any vectors, either format, either way of writing the upstream's numbers: the answer parses
  // to exactly what JSON.stringify of the list object gives.
  const Vectors = Schema.Array(Schema.Array(Schema.Finite).check(Schema.isMinLength(1)).check(Schema.isMaxLength(40)))
    .check(Schema.isMinLength(1))
    .check(Schema.isMaxLength(4))
  it.effect.prop("the written answer equals JSON.stringify of the list object", [Vectors, Schema.Boolean, Schema.Boolean], ([vectors, spaced, base64]) =>
    Effect.sync(() => {
      const write = (v: ReadonlyArray<number>) => (spaced ? `[ ${v.map((n) => n.toExponential()).join(" ,\n")} ]` : JSON.stringify(v))
      const text = `{"data":[${vectors.map((v, i) => `{"object":"embedding","index":${i},"embedding":${write(v)}}`).join(",")}],"usage":{"prompt_tokens":1}}`
      const texts = vectors.map(() => "t")
      const result = embeddingsFromOpenAi(JSON.parse(text), { _tag: "Text", texts }, text)
      if (typeof result === "string") throw new Error(result)
      const wire = embeddingsToWire(result, { model: "emb", format: base64 ? "base64" : "float" })
      expect(JSON.parse(embeddingsWireJson(wire))).toEqual(JSON.parse(JSON.stringify(wire)))
    }))
})
