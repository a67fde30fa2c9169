import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { EmbeddingRequest } from "../../../src/Domain/EmbeddingRequest.ts"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import { makeMockEmbeddingProvider } from "../../../src/Providers/Mock/MockAdapter.ts"
import { defaultMockDimensions, mockEmbeddings, mockVector } from "../../../src/Providers/Mock/MockEmbedding.ts"

const model = (capabilities: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "mock-embed", kind: "embedding", deployments: [{ provider: "mock", model: "mock-embed" }], capabilities })
const request = (fields: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: "mock-embed",
  input: { _tag: "Text", texts: ["alpha", "beta", "alpha"] },
  encodingFormat: "float",
  extra: {},
  ...fields
})
const norm = (v: ReadonlyArray<number>) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))

describe("mock embeddings", () => {
  it("give equal inputs equal unit vectors and different inputs different ones", () => {
    const [a, b, again] = mockEmbeddings(request(), model({ dimensions: 32 })).vectors as ReadonlyArray<ReadonlyArray<number>>
    expect(a).toHaveLength(32)
    expect(again).toEqual(a)
    expect(b).not.toEqual(a)
    expect(norm(a!)).toBeCloseTo(1, 12)
    expect(mockVector("alpha", 32)).toEqual(a)
  })

  it("size vectors by the request's dimensions, else the model's, else the default", () => {
    expect(mockEmbeddings(request({ dimensions: 5 }), model({ dimensions: 32 })).vectors[0]).toHaveLength(5)
    expect(mockEmbeddings(request(), model({ dimensions: 32 })).vectors[0]).toHaveLength(32)
    expect(mockEmbeddings(request(), model()).vectors[0]).toHaveLength(defaultMockDimensions)
  })

  it("count prompt tokens as the gateway estimates them, token-id input exactly", () => {
    // One token per 4 bytes, at least 1 per input: alpha 2, beta 1, alpha 2.
    expect(mockEmbeddings(request(), model()).promptTokens).toBe(5)
    const tokens = mockEmbeddings(request({ input: { _tag: "Tokens", tokens: [[1, 2, 3], [4]] } }), model())
    expect(tokens.promptTokens).toBe(4)
    expect(tokens.vectors).toHaveLength(2)
  })

  it("are served through the embeddings port, token ids included", async () => {
    const provider = await Effect.runPromise(makeMockEmbeddingProvider({ id: "mock", kind: "mock", base_url: "", timeouts: { connect_ms: 1, first_byte_ms: 1, idle_ms: 1, total_ms: 1 } }))
    expect(provider.acceptsTokens).toBe(true)
    const result = await Effect.runPromise(provider.embed(request(), { upstreamModel: "mock-embed", model: model({ dimensions: 8 }) }))
    expect(result.vectors).toHaveLength(3)
    expect(result.vectors[0]).toHaveLength(8)
  })
})
