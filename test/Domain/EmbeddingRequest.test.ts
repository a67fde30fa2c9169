import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { checkEmbeddingRequest, upstreamDimensions } from "../../src/Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../src/Domain/EmbeddingRequest.ts"
import { decodeEmbeddingRequest } from "../../src/Domain/EmbeddingRequestDecoder.ts"
import { embeddingsToWire } from "../../src/Domain/EmbeddingResultWire.ts"
import { estimatePromptTokens } from "../../src/Domain/EmbeddingTokens.ts"
import { base64ToFloats, floatsToBase64, isFloat32Base64, vectorIn } from "../../src/Domain/EmbeddingVector.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import type { GatewayError } from "../../src/Domain/GatewayError.ts"

const decode = (body: Record<string, unknown>) => Effect.runSyncExit(decodeEmbeddingRequest(body))
const ok = (body: Record<string, unknown>): EmbeddingRequest => {
  const exit = decode(body)
  if (Exit.isFailure(exit)) throw new Error(`expected success, got ${String(exit.cause)}`)
  return exit.value
}
const rejection = (body: Record<string, unknown>) => {
  const exit = decode(body)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  const error = reason.error.reason
  return { tag: error._tag, param: "param" in error ? error.param : undefined, message: error.message }
}
const model = (fields: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "emb", kind: "embedding", deployments: [{ provider: "p", model: "m" }], ...fields })

describe("embeddings request decoding", () => {
  it("accepts each of the four input shapes, with defaults and aliases resolved", () => {
    expect(ok({ model: "emb", input: "hello" })).toEqual({ model: "emb", input: { _tag: "Text", texts: ["hello"] }, encodingFormat: "float", extra: {} })
    expect(ok({ model: "emb", input: ["a", "b"], encoding_format: "base64" }).input).toEqual({ _tag: "Text", texts: ["a", "b"] })
    expect(ok({ model: "emb", input: [1, 2, 3] }).input).toEqual({ _tag: "Tokens", tokens: [[1, 2, 3]] })
    expect(ok({ model: "emb", input: [[1], [2, 0]] }).input).toEqual({ _tag: "Tokens", tokens: [[1], [2, 0]] })
    const full = ok({ model: "emb", input: "x", dimensions: 256, encoding_format: "base64", safety_identifier: "u-1", input_type: "query" })
    expect(full).toMatchObject({ dimensions: 256, encodingFormat: "base64", user: "u-1", extra: { input_type: "query" } })
    expect(ok({ model: "emb", input: "x", user: "u-2", safety_identifier: "u-3" }).user).toBe("u-2")
    expect(ok({ model: "emb", input: "x", dimensions: null, encoding_format: null, user: null })).toEqual(ok({ model: "emb", input: "x" }))
  })

  it("accepts 2048 inputs and a lone token array longer than that", () => {
    expect(ok({ model: "emb", input: Array.from({ length: 2048 }, () => "x") }).input).toMatchObject({ _tag: "Text" })
    expect(ok({ model: "emb", input: Array.from({ length: 5000 }, (_, i) => i) }).input).toMatchObject({ _tag: "Tokens" })
  })

  it.each([
    [{ input: "x" }, "model"],
    [{ model: "", input: "x" }, "model"],
    [{ model: 5, input: "x" }, "model"],
    [{ model: "emb" }, "input"],
    [{ model: "emb", input: null }, "input"],
    [{ model: "emb", input: "" }, "input"],
    [{ model: "emb", input: [] }, "input"],
    [{ model: "emb", input: 42 }, "input"],
    [{ model: "emb", input: { text: "x" } }, "input"],
    [{ model: "emb", input: Array.from({ length: 2049 }, () => "x") }, "input"],
    [{ model: "emb", input: Array.from({ length: 2049 }, () => [1]) }, "input"],
    [{ model: "emb", input: ["a", ""] }, "input[1]"],
    [{ model: "emb", input: ["a", 3] }, "input[1]"],
    [{ model: "emb", input: [1, -2] }, "input[1]"],
    [{ model: "emb", input: [1, 2.5] }, "input[1]"],
    [{ model: "emb", input: [1, "2"] }, "input[1]"],
    [{ model: "emb", input: [[1], []] }, "input[1]"],
    [{ model: "emb", input: [[1], [2, -1]] }, "input[1][1]"],
    [{ model: "emb", input: [[1], 2] }, "input[1]"],
    [{ model: "emb", input: [null] }, "input[0]"],
    [{ model: "emb", input: "x", dimensions: 0 }, "dimensions"],
    [{ model: "emb", input: "x", dimensions: 1.5 }, "dimensions"],
    [{ model: "emb", input: "x", dimensions: "256" }, "dimensions"],
    [{ model: "emb", input: "x", encoding_format: "int8" }, "encoding_format"],
    [{ model: "emb", input: "x", user: 7 }, "user"],
    [{ model: "emb", input: "x", safety_identifier: false }, "safety_identifier"]
  ])("400 for %j names %s", (body, param) => {
    const error = rejection(body)
    expect(error.tag).toBe("InvalidRequest")
    expect(error.param).toBe(param)
    expect(error.message).toContain(param)
  })
})

describe("embeddings gate", () => {
  const request = (fields: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
    model: "emb",
    input: { _tag: "Text", texts: ["x"] },
    encodingFormat: "float",
    extra: {},
    ...fields
  })
  const param = (error: GatewayError | undefined) => (error?.reason._tag === "InvalidRequest" ? error.reason.param : undefined)
  const shortening = model({ capabilities: { dimensions: 1536, matryoshka: true, context_length: 4 } })
  const fixed = model({ capabilities: { dimensions: 1536 } })

  it("allows shortening only where the model has nested representations", () => {
    expect(checkEmbeddingRequest(request({ dimensions: 256 }), shortening, { acceptsTokens: true })).toBeUndefined()
    expect(param(checkEmbeddingRequest(request({ dimensions: 256 }), fixed, { acceptsTokens: true }))).toBe("dimensions")
    expect(param(checkEmbeddingRequest(request({ dimensions: 256 }), model(), { acceptsTokens: true }))).toBe("dimensions")
    expect(param(checkEmbeddingRequest(request({ dimensions: 3072 }), shortening, { acceptsTokens: true }))).toBe("dimensions")
    // The native size shortens nothing: accepted everywhere and not sent upstream.
    expect(checkEmbeddingRequest(request({ dimensions: 1536 }), fixed, { acceptsTokens: true })).toBeUndefined()
    expect(upstreamDimensions(request({ dimensions: 1536 }), fixed)).toBeUndefined()
    expect(upstreamDimensions(request({ dimensions: 256 }), shortening)).toBe(256)
  })

  it("token input needs a provider that takes it, and fits the context", () => {
    const tokens = (...arrays: Array<Array<number>>) => request({ input: { _tag: "Tokens", tokens: arrays } })
    expect(param(checkEmbeddingRequest(tokens([1]), shortening, { acceptsTokens: false }))).toBe("input")
    expect(checkEmbeddingRequest(tokens([1, 2, 3, 4]), shortening, { acceptsTokens: true })).toBeUndefined()
    expect(param(checkEmbeddingRequest(tokens([1, 2, 3, 4, 5]), shortening, { acceptsTokens: true }))).toBe("input")
    expect(param(checkEmbeddingRequest(tokens([1], [1, 2, 3, 4, 5]), shortening, { acceptsTokens: true }))).toBe("input[1]")
  })
})

describe("embedding vectors", () => {
  const values = [0.5, -1.25, 3.1415927, 1e-8, 0]

  it("base64 is little-endian float32, as the OpenAI SDK decodes it", () => {
    const encoded = floatsToBase64(values)
    const bytes = Buffer.from(encoded, "base64")
    expect(bytes.readFloatLE(0)).toBe(0.5)
    expect(bytes.readFloatLE(4)).toBe(-1.25)
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 5))).toEqual(values.map(Math.fround))
    expect(base64ToFloats(encoded)).toEqual(values.map(Math.fround))
  })

  it("checks base64 length without decoding", () => {
    expect(isFloat32Base64(floatsToBase64(values))).toBe(true)
    expect(isFloat32Base64(floatsToBase64([1]))).toBe(true)
    expect(isFloat32Base64(Buffer.from([1, 2, 3]).toString("base64"))).toBe(false)
    expect(isFloat32Base64("abc")).toBe(false)
  })

  it("a vector already in the asked format is passed through as the same value", () => {
    const floats = [1, 2]
    const encoded = floatsToBase64(floats)
    expect(vectorIn(floats, "float")).toBe(floats)
    expect(vectorIn(encoded, "base64")).toBe(encoded)
    expect(vectorIn(floats, "base64")).toBe(encoded)
    expect(vectorIn(encoded, "float")).toEqual(floats)
  })

  it("renders the list object of spec 2.7", () => {
    const body = embeddingsToWire({ vectors: [[1, 2], floatsToBase64([3])], promptTokens: 7 }, { model: "emb", format: "float" })
    expect(body).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [1, 2] }, { object: "embedding", index: 1, embedding: [3] }],
      model: "emb",
      usage: { prompt_tokens: 7, total_tokens: 7 }
    })
  })

  it("estimates prompt tokens: exact for token ids, 4 UTF-8 bytes a token for text", () => {
    expect(estimatePromptTokens({ _tag: "Tokens", tokens: [[1, 2], [3]] })).toBe(3)
    expect(estimatePromptTokens({ _tag: "Text", texts: ["abcdefgh", "a", "日本"] })).toBe(2 + 1 + 2)
  })
})
