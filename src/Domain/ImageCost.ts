import type { Capabilities, Pricing } from "./GatewayConfig.ts"

/**
 * Input tokens allowed for one reference image when the model declares no `context_length`:
 * above what the providers document for one input image at their highest input fidelity.
 */
export const referenceTokenAllowance = 6_500

export interface ImageCostAsk {
  readonly n: number
  /** UTF-8 bytes of the prompt: a token covers at least one byte, so this bounds its tokens. */
  readonly promptBytes: number
  readonly referenceCount: number
  /** How many upstream calls read the input (Gemini makes one call per image). */
  readonly inputCalls: number
}

/**
 * The most one image request can cost, in integer nano-dollars, from the model's prices, for
 * the billing step to reserve before the upstream call: `n` times the per-image price, plus the
 * per-request price, plus the token bound when the model is priced per token. Output tokens are
 * bounded per image by `capabilities.max_output_tokens` (unset: no output-token charge can be
 * bounded, so it counts as none); input tokens by `context_length`, else by the prompt's bytes
 * and an allowance per reference image, for every call that reads them.
 */
export const imageCostBoundNanoUsd = (pricing: Pricing, capabilities: Capabilities, ask: ImageCostAsk): number => {
  const perToken = (perMillion: number | undefined) => (perMillion ?? 0) * 1000
  const inputTokens = capabilities.context_length ?? ask.promptBytes + ask.referenceCount * referenceTokenAllowance
  const outputTokens = ask.n * (capabilities.max_output_tokens ?? 0)
  return Math.ceil(
    ask.n * (pricing.per_image ?? 0) * 1e9 +
      (pricing.per_request ?? 0) * 1e9 +
      ask.inputCalls * inputTokens * perToken(pricing.input_per_mtok) +
      outputTokens * perToken(pricing.output_per_mtok)
  )
}
