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
import { embeddingsFromOpenAi, parseEmbeddingAnswer } from "../../src/Providers/OpenAi/OpenAiEmbeddingResponse.ts"

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

  const vectorTexts = (text: string) => parseEmbeddingAnswer(text)?.vectorTexts

  it("finds the array after each embedding key, compact or spaced, and skips the value \"embedding\"", () => {
    expect(vectorTexts(answer(""))).toEqual(["[0.5,-1e-7,3.0]", "[2.25]"])
    expect(vectorTexts(answer(" \n"))).toEqual(["[0.5, \n-1e-7, \n3.0]", "[ \n2.25 \n]"])
    expect(vectorTexts('{"data":[{"object":"embedding","embedding":"AACAPw=="}]}')).toEqual([])
  })

  const parsed = (text: string) => {
    const answer = parseEmbeddingAnswer(text)
    if (answer === undefined) throw new Error("not JSON")
    const result = embeddingsFromOpenAi(answer.body, input, answer.vectorTexts)
    if (typeof result === "string") throw new Error(result)
    return result
  }

  it("keeps each vector's text unparsed, placed by index, and writes it unchanged", () => {
    for (const space of ["", " \n"]) {
      const text = answer(space)
      const result = parsed(text)
      const [second, first] = vectorTexts(text)!
      expect(result.vectors).toEqual([{ _tag: "JsonNumbers", json: first }, { _tag: "JsonNumbers", json: second }])
      const wire = embeddingsToWire(result, { model: "emb", format: "float" })
      expect(embeddingsWireJson(wire)).toContain(`"embedding":${second}`)
      expect(JSON.parse(embeddingsWireJson(wire))).toEqual({
        object: "list",
        data: [{ object: "embedding", index: 0, embedding: [2.25] }, { object: "embedding", index: 1, embedding: [0.5, -1e-7, 3] }],
        model: "emb",
        usage: { prompt_tokens: 3, total_tokens: 3 }
      })
      expect(embeddingsToWire(result, { model: "emb", format: "base64" }).data.map((d) => d.embedding)).toEqual([
        floatsToBase64([2.25]),
        floatsToBase64([0.5, -1e-7, 3])
      ])
    }
  })

  it("another field called embedding never takes a vector's place", () => {
    const b64 = floatsToBase64([1, 2])
    const texts = (text: string) => parsed(text).vectors.map(vectorJson)
    expect(texts('{"meta":{"embedding":[9, 9]},"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}]}')).toEqual(["[1, 2]", "[3, 4]"])
    expect(texts(`{"data":[{"embedding":"${b64}"},{"embedding":[3, 4]}],"meta":{"embedding":[7, 8]}}`)).toEqual([`"${b64}"`, "[3, 4]"])
  })

  it("parses the body whole when an embedding array holds anything but numbers, and rejects what is not JSON", () => {
    // Parsed whole: the vectors are plain arrays, and the client's answer is formatted.
    expect(parsed('{"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}],"x":{"embedding":[[5]]}}').vectors).toEqual([[1, 2], [3, 4]])
    expect(parsed('{"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}],"x":{"embedding":[1e999, "a"]}}').vectors).toEqual([[1, 2], [3, 4]])
    for (const broken of ['{"data":[{"embedding":[1, 2]},{"embedding":[3, 4]}]', '{"data":[{"embedding":[1,,2]}]}', '{"data":[{"embedding":[01]}]}', '{"data":[{"embedding":[1]},]}']) {
      expect(parseEmbeddingAnswer(broken)).toBeUndefined()
    }
    // Numbers JSON allows and JavaScript's own syntax would not be confused with.
    expect(parsed('{"data":[{"embedding":[-0, 1E+2, 0.5e-3]},{"embedding":[1]}]}').vectors.map(vectorJson)).toEqual(["[-0, 1E+2, 0.5e-3]", "[1]"])
    // Vectors parsed as numbers: the hand-written answer is exactly what JSON.stringify writes.
    const plain = embeddingsToWire(parsed('{"data":[{"embedding":[1, 2]},{"embedding":[3.5]}],"x":{"embedding":["a"]}}'), { model: "m\"x", format: "float" })
    expect(embeddingsWireJson(plain)).toBe(JSON.stringify(plain))
    // An empty vector is still refused by name.
    expect(embeddingsFromOpenAi(parseEmbeddingAnswer('{"data":[{"embedding":[1]},{"embedding":[]}]}')!.body, input)).toMatch(/index 1/)
  })

  // Any vectors, either format, either way of writing the upstream's numbers: the answer parses
  // to exactly those vectors.
  const Vectors = Schema.Array(Schema.Array(Schema.Finite).check(Schema.isMinLength(1)).check(Schema.isMaxLength(40)))
    .check(Schema.isMinLength(1))
    .check(Schema.isMaxLength(4))
  it.effect.prop("the written answer holds exactly the upstream's vectors, in either format", [Vectors, Schema.Boolean, Schema.Boolean], ([vectors, spaced, base64]) =>
    Effect.sync(() => {
      const write = (v: ReadonlyArray<number>) => (spaced ? `[ ${v.map((n) => n.toExponential()).join(" ,\n")} ]` : JSON.stringify(v))
      const text = `{"data":[${vectors.map((v, i) => `{"object":"embedding","index":${i},"embedding":${write(v)}}`).join(",")}],"usage":{"prompt_tokens":1}}`
      const texts = vectors.map(() => "t")
      const answer = parseEmbeddingAnswer(text)!
      expect(answer.vectorTexts).toHaveLength(vectors.length)
      const result = embeddingsFromOpenAi(answer.body, { _tag: "Text", texts }, answer.vectorTexts)
      if (typeof result === "string") throw new Error(result)
      const wire = embeddingsToWire(result, { model: "emb", format: base64 ? "base64" : "float" })
      // What the upstream's text says (JSON has no -0: JSON.stringify writes it as 0).
      const sent = vectors.map((v) => JSON.parse(write(v)) as Array<number>)
      const expected = { object: "list", data: sent.map((v, index) => ({ object: "embedding", index, embedding: base64 ? floatsToBase64(v) : v })) }
      expect(JSON.parse(embeddingsWireJson(wire))).toMatchObject(expected)
    }))
})
