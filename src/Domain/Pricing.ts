import { divideRounded, nanoFromUsd } from "./NanoUsd.ts"
import type { Pricing } from "./GatewayConfig.ts"
import type { Usage } from "./Usage.ts"

/** A count as a whole, non-negative bigint (the ledger normalises usage first; this is the backstop). */
const whole = (n: number | undefined): bigint => (n === undefined || !Number.isFinite(n) || n <= 0 ? 0n : BigInt(Math.round(n)))

interface NanoPrices {
  readonly input: bigint
  readonly cached: bigint
  readonly write: bigint
  readonly output: bigint
  readonly perUnit: bigint
  readonly perRequest: bigint
}

// A model's prices are converted once: the pricing objects come from the loaded configuration.
const converted = new WeakMap<Pricing, NanoPrices>()

const nanoPrices = (pricing: Pricing): NanoPrices => {
  let prices = converted.get(pricing)
  if (prices === undefined) {
    const input = nanoFromUsd(pricing.input_per_mtok)
    prices = {
      input,
      cached: pricing.cached_input_per_mtok === undefined ? input : nanoFromUsd(pricing.cached_input_per_mtok),
      write: pricing.cache_write_per_mtok === undefined ? input : nanoFromUsd(pricing.cache_write_per_mtok),
      output: nanoFromUsd(pricing.output_per_mtok),
      perUnit: nanoFromUsd(pricing.per_image) + nanoFromUsd(pricing.per_audio_second),
      perRequest: nanoFromUsd(pricing.per_request)
    }
    converted.set(pricing, prices)
  }
  return prices
}

/**
 * Cost of one call in integer nano-dollars. Prices are converted to integer nano-dollars (token
 * prices per million tokens) before any arithmetic, and the token part is summed exactly in bigint
 * and rounded once, half up: no float drift, whatever the counts. Cache reads and writes are
 * priced separately when the model has such prices, and as plain input otherwise.
 */
export const costNanoUsd = (pricing: Pricing, usage: Usage, units = 0): number => {
  const prices = nanoPrices(pricing)
  const prompt = whole(usage.promptTokens)
  const cached = min(whole(usage.cachedTokens), prompt)
  const written = min(whole(usage.cacheWriteTokens), prompt - cached)
  const plain = prompt - cached - written
  const perMillionTokens = plain * prices.input + cached * prices.cached + written * prices.write +
    whole(usage.completionTokens) * prices.output
  const total = divideRounded(perMillionTokens, 1_000_000n) + whole(units) * prices.perUnit + prices.perRequest
  return total > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(total)
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b)
