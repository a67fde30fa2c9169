import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chatWorstCase, type CostContext, defaultOutputReserve, embeddingWorstCase, transcriptionWorstCase } from "../../src/Domain/AdmissionCost.ts"
import { decodeChatRequest } from "../../src/Domain/ChatRequestDecoder.ts"
import { decodeEmbeddingRequest } from "../../src/Domain/EmbeddingRequestDecoder.ts"
import { estimatePromptTokens } from "../../src/Domain/ChatTokenEstimate.ts"
import { costNanoUsd } from "../../src/Domain/Pricing.ts"
import { embeddingTokenBound, promptTokenBound } from "../../src/Domain/PromptTokenBound.ts"
import { decodeConfig } from "../../src/Services/Config/GatewayConfigLoader.ts"

const config = Effect.runSync(
  decodeConfig("cost.yaml", {
    providers: [{ id: "p", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key: "k" }],
    models: [
      { id: "cheap", kind: "chat", deployments: [{ provider: "p", model: "m" }], capabilities: { max_output_tokens: 1000 }, pricing: { input_per_mtok: 1, output_per_mtok: 2 }, fallbacks: ["dear"] },
      { id: "dear", kind: "chat", deployments: [{ provider: "p", model: "m" }], pricing: { input_per_mtok: 10, output_per_mtok: 30, per_request: 0.001 } },
      { id: "free", kind: "chat", deployments: [{ provider: "p", model: "m" }] },
      { id: "emb", kind: "embedding", deployments: [{ provider: "p", model: "m" }], pricing: { input_per_mtok: 0.02 } },
      { id: "stt", kind: "transcription", deployments: [{ provider: "p", model: "m" }], pricing: { per_audio_second: 0.0001 } }
    ]
  }, {})
)
const context: CostContext = { config, model: (id) => config.models.find((m) => m.id === id) }
const chat = (body: Record<string, unknown>) => Effect.runSync(decodeChatRequest({ messages: [{ role: "user", content: "hello there" }], ...body }))

describe("worst-case costs of admission", () => {
  it("chat: the prompt's token bound (money) or estimate (TPM) plus the output cap for every choice, at the dearest of the model and its fallbacks", () => {
    const request = chat({ model: "cheap", max_completion_tokens: 50, n: 2 })
    const prompt = estimatePromptTokens(request)
    const dear = config.models[1]!.pricing
    expect(promptTokenBound(request)).toBeGreaterThan(prompt)
    expect(chatWorstCase(request, context)).toEqual({
      nanoUsd: costNanoUsd(dear, { promptTokens: promptTokenBound(request), completionTokens: 100 }),
      tokens: prompt + 100,
      unpriced: undefined,
      // A refusal names the fallback that set the worst case and the cap it counted.
      setBy: { model: "dear", fallback: true, outputTokens: 100, cap: "request" }
    })
    expect(chatWorstCase(chat({ model: "cheap" }), context).setBy).toEqual({ model: "dear", fallback: true, outputTokens: defaultOutputReserve, cap: "default" })
    expect(chatWorstCase(chat({ model: "dear", max_tokens: 5 }), context).setBy).toMatchObject({ model: "dear", fallback: false })
  })

  it("chat without a cap: the model's max_output_tokens, else the default reserve; a model without prices is named", () => {
    expect(chatWorstCase(chat({ model: "dear" }), context).tokens).toBe(estimatePromptTokens(chat({ model: "dear" })) + defaultOutputReserve)
    expect(chatWorstCase(chat({ model: "free" }), context)).toMatchObject({ nanoUsd: 0, unpriced: "free" })
    expect(chatWorstCase(chat({ model: "nobody" }), context)).toEqual({ nanoUsd: 0, tokens: 0, unpriced: undefined })
  })

  it.prop("the reservation covers any usage within the caps", { out: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })), used: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })) }, ({ out, used }) => {
    const request = chat({ model: "cheap", max_completion_tokens: out })
    const ask = chatWorstCase(request, context)
    const actual = Math.min(used, out)
    for (const model of config.models.slice(0, 2)) {
      expect(costNanoUsd(model.pricing, { promptTokens: estimatePromptTokens(request), completionTokens: actual })).toBeLessThanOrEqual(ask.nanoUsd)
    }
  })

  it("embeddings are priced on their input; audio on the longest audio its bytes can hold", () => {
    const embedding = Effect.runSync(decodeEmbeddingRequest({ model: "emb", input: ["abcd", "efgh"] }))
    // "abcd" and "efgh": 1 token each by the estimate (TPM); at most 4 bytes + 3 markers each for the hold.
    expect(embeddingTokenBound(embedding.input)).toBe(14)
    expect(embeddingWorstCase(embedding, context)).toMatchObject({ tokens: 2, nanoUsd: 14 * 20 })
    expect(transcriptionWorstCase(50_000)({ model: "stt" }, context).nanoUsd).toBe(100 * 100_000)
  })
})
