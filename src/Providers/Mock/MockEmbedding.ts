import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult } from "../../Domain/EmbeddingResult.ts"
import { estimatePromptTokens } from "../../Domain/EmbeddingTokens.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"

/** Vector size when neither the request nor the model's `capabilities.dimensions` gives one. */
export const defaultMockDimensions = 16

/** FNV-1a over the UTF-16 code units: a stable seed per input. */
const seedOf = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** mulberry32: a small deterministic generator, uniform in [0, 1). */
const generator = (seed: number) => {
  let state = seed
  return (): number => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A unit-length vector that depends only on the input and the size: equal inputs embed equally,
 * different ones almost surely not. It carries no meaning; it lets clients exercise the wire
 * format, batching, `dimensions` and billing.
 */
export const mockVector = (input: string, dimensions: number): ReadonlyArray<number> => {
  const next = generator(seedOf(input))
  const raw = Array.from({ length: dimensions }, () => next() * 2 - 1)
  const norm = Math.sqrt(raw.reduce((sum, x) => sum + x * x, 0)) || 1
  return raw.map((x) => x / norm)
}

export const mockDimensions = (request: EmbeddingRequest, model: ModelConfig): number =>
  request.dimensions ?? model.capabilities.dimensions ?? defaultMockDimensions

export const mockEmbeddings = (request: EmbeddingRequest, model: ModelConfig): EmbeddingResult => {
  const dimensions = mockDimensions(request, model)
  const inputs = request.input._tag === "Text" ? request.input.texts : request.input.tokens.map((tokens) => tokens.join(","))
  return { vectors: inputs.map((input) => mockVector(input, dimensions)), promptTokens: estimatePromptTokens(request.input) }
}
