import type { Pricing } from "./GatewayConfig.ts"
import type { Usage } from "./Usage.ts"

/**
 * Cost of one call in nano-dollars (integers keep sums exact). Cache reads and writes are
 * priced separately when the model has such prices, and as plain input otherwise.
 */
export const costNanoUsd = (pricing: Pricing, usage: Usage, units = 0): number => {
  const perToken = (perMillion: number | undefined) => (perMillion ?? 0) * 1000
  const input = perToken(pricing.input_per_mtok)
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens)
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached)
  const plain = usage.promptTokens - cached - written
  return Math.round(
    plain * input +
      cached * (pricing.cached_input_per_mtok === undefined ? input : perToken(pricing.cached_input_per_mtok)) +
      written * (pricing.cache_write_per_mtok === undefined ? input : perToken(pricing.cache_write_per_mtok)) +
      usage.completionTokens * perToken(pricing.output_per_mtok) +
      units * ((pricing.per_image ?? 0) + (pricing.per_audio_second ?? 0)) * 1e9 +
      (pricing.per_request ?? 0) * 1e9
  )
}
