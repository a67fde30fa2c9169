import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { Pricing } from "../../src/Domain/GatewayConfig.ts"
import { formatNanoUsd, nanoFromUsd, usdFromNano } from "../../src/Domain/NanoUsd.ts"
import { costNanoUsd } from "../../src/Domain/Pricing.ts"

// Prices as providers publish them: up to 9 decimals of a dollar, per million tokens.
const NanoPrice = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 200_000_000_000 }))
const Tokens = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000_000 }))
const Nano = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))

const usd = (nano: number) => nano / 1e9

/** The exact cost, computed independently: rationals over bigint, rounded half up once. */
const reference = (inNano: number, outNano: number, prompt: number, completion: number): bigint => {
  const numerator = BigInt(prompt) * BigInt(inNano) + BigInt(completion) * BigInt(outNano)
  const million = 1_000_000n
  const whole = numerator / million
  return numerator % million * 2n >= million ? whole + 1n : whole
}

describe("integer nano-dollar cost", () => {
  it.prop("a price in dollars becomes exactly its nano-dollars", { nano: NanoPrice }, ({ nano }) => {
    expect(nanoFromUsd(usd(nano))).toBe(BigInt(nano))
  })

  it.prop(
    "the cost of any usage is the exact rational cost rounded once, with no float drift",
    { inNano: NanoPrice, outNano: NanoPrice, prompt: Tokens, completion: Tokens },
    ({ inNano, outNano, prompt, completion }) => {
      const pricing: Pricing = { input_per_mtok: usd(inNano), output_per_mtok: usd(outNano) }
      const cost = costNanoUsd(pricing, { promptTokens: prompt, completionTokens: completion })
      expect(Number.isSafeInteger(cost)).toBe(true)
      expect(BigInt(cost)).toBe(reference(inNano, outNano, prompt, completion))
    }
  )

  it.prop(
    "is monotonic: more tokens never cost less",
    { inNano: NanoPrice, outNano: NanoPrice, prompt: Tokens, completion: Tokens, extra: Tokens },
    ({ inNano, outNano, prompt, completion, extra }) => {
      const pricing: Pricing = { input_per_mtok: usd(inNano), output_per_mtok: usd(outNano) }
      const base = costNanoUsd(pricing, { promptTokens: prompt, completionTokens: completion })
      expect(costNanoUsd(pricing, { promptTokens: prompt + extra, completionTokens: completion })).toBeGreaterThanOrEqual(base)
      expect(costNanoUsd(pricing, { promptTokens: prompt, completionTokens: completion + extra })).toBeGreaterThanOrEqual(base)
    }
  )

  it.prop(
    "cache reads and writes are priced apart and never exceed the prompt",
    { cached: Tokens, written: Tokens, prompt: Tokens },
    ({ cached, written, prompt }) => {
      const pricing: Pricing = { input_per_mtok: 3, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75 }
      const cost = costNanoUsd(pricing, { promptTokens: prompt, completionTokens: 0, cachedTokens: cached, cacheWriteTokens: written })
      const readsPart = Math.min(cached, prompt)
      const writesPart = Math.min(written, prompt - readsPart)
      const plain = prompt - readsPart - writesPart
      const numerator = BigInt(plain) * 3_000_000_000n + BigInt(readsPart) * 300_000_000n + BigInt(writesPart) * 3_750_000_000n
      expect(BigInt(cost)).toBe((numerator * 2n + 1_000_000n) / 2_000_000n)
    }
  )

  it.prop("a report's dollars come from the integer: the decimal round-trips exactly", { nano: Nano }, ({ nano }) => {
    const text = formatNanoUsd(nano)
    expect(text).toMatch(/^\d+\.\d{9}$/)
    expect(BigInt(text.replace(".", ""))).toBe(BigInt(nano))
    // The JSON number is the nearest double to that decimal: printing it shows no artefact digits.
    expect(String(usdFromNano(nano)).replace(/(\.\d*?)0+$/, "$1").length).toBeLessThanOrEqual(text.length)
    expect(usdFromNano(nano)).toBe(Number(text))
  })

  it("sums of 0.1 and 0.2 dollars are 0.3 dollars, not 0.30000000000000004", () => {
    const pricing: Pricing = { per_request: 0.1 }
    const other: Pricing = { per_request: 0.2 }
    const total = BigInt(costNanoUsd(pricing, { promptTokens: 0, completionTokens: 0 })) +
      BigInt(costNanoUsd(other, { promptTokens: 0, completionTokens: 0 }))
    expect(0.1 + 0.2).not.toBe(0.3)
    expect(usdFromNano(total)).toBe(0.3)
    expect(formatNanoUsd(total, 6)).toBe("0.300000")
  })

  it("units, per-request prices and odd token counts (fractions, NaN, negatives) stay integral", () => {
    const pricing: Pricing = { input_per_mtok: 0.075, output_per_mtok: 0.3, per_image: 0.04, per_request: 0.000_001 }
    // $0.075 per million tokens is 75 nano-dollars a token.
    expect(costNanoUsd(pricing, { promptTokens: 1, completionTokens: 1 }, 2)).toBe(75 + 300 + 80_000_000 + 1000)
    expect(costNanoUsd(pricing, { promptTokens: 12.5, completionTokens: Number.NaN })).toBe(13 * 75 + 1000)
    expect(costNanoUsd(pricing, { promptTokens: -5, completionTokens: 0 })).toBe(1000)
    expect(formatNanoUsd(1_499_999n, 6)).toBe("0.001500")
    expect(formatNanoUsd(1_499_499n, 6)).toBe("0.001499")
  })
})
