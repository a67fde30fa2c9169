import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { normaliseUsage, usageToWire } from "../../src/Domain/Usage.ts"
import type { UsageEvent } from "../../src/Domain/UsageEvent.ts"
import { cleanText, usageBounds } from "../../src/Domain/UsageBounds.ts"
import { normaliseUsageEvent } from "../../src/Domain/UsageNormaliser.ts"
import { usageEvent } from "../support/UsageEvents.ts"

// Figures an upstream or a client could put in front of the ledger, including the hostile ones.
const Figure = Schema.Union([
  Schema.Int.check(Schema.isBetween({ minimum: -1000, maximum: 1000 })),
  Schema.Number, // any double, NaN and the infinities included
  Schema.Literals([12.5, 3e9, -1, 0.4999, Number.MAX_VALUE])
])
const Name = Schema.Union([Schema.String, Schema.Literals(["m\u0000x", "\u0007\u001b[31m", "a".repeat(5000), "\ud800x", "é😀"])])

const inColumns = (e: UsageEvent) => {
  for (const n of [e.promptTokens, e.completionTokens, e.cachedTokens, e.cacheWriteTokens]) {
    expect(Number.isInteger(n) && n >= 0 && n <= usageBounds.maxTokens).toBe(true)
  }
  expect(Number.isInteger(e.units) && e.units >= 0 && e.units <= usageBounds.maxUnits).toBe(true)
  expect(Number.isSafeInteger(e.costNanoUsd) && e.costNanoUsd >= 0).toBe(true)
  for (const name of [e.requestedModel, e.usedModel, e.provider, e.requestId]) {
    if (name === null) continue
    expect(name.length).toBeLessThanOrEqual(usageBounds.maxNameLength)
    expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(() => encodeURIComponent(name)).not.toThrow() // well-formed UTF-16
  }
}

describe("usage event normalisation", () => {
  it("cleans a model with a NUL byte and cuts a model kilobytes long, keeping what was received", () => {
    const normal = normaliseUsageEvent(usageEvent({ requestedModel: "gpt\u0000-test\u001b", usedModel: "m".repeat(4096) }))
    expect(normal.requestedModel).toBe("gpt-test")
    expect(normal.usedModel).toBe("m".repeat(usageBounds.maxNameLength))
    expect(normal.raw).toEqual({
      requested_model: { chars: 10, control_chars: 2 },
      used_model: { chars: 4096, control_chars: 0 }
    })
  })

  it("makes fractional, huge, negative and non-finite figures whole and bounded", () => {
    const normal = normaliseUsageEvent(usageEvent({
      promptTokens: 12.5,
      completionTokens: 3e9,
      cachedTokens: -4,
      cacheWriteTokens: Number.NaN,
      units: 2.2,
      costNanoUsd: 1e20
    }))
    expect(normal).toMatchObject({
      promptTokens: 13,
      completionTokens: usageBounds.maxTokens,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      units: 3,
      costNanoUsd: Number.MAX_SAFE_INTEGER
    })
    expect(normal.raw).toEqual({
      prompt_tokens: 12.5,
      completion_tokens: 3e9,
      cached_tokens: -4,
      cache_write_tokens: "NaN",
      units: 2.2,
      cost_nano_usd: 1e20
    })
  })

  it("leaves a normal event alone: no raw figures, sub-millisecond latency rounding is not news", () => {
    const event = usageEvent({ latencyMs: 12.345 })
    const normal = normaliseUsageEvent(event)
    expect(normal.raw).toBeUndefined()
    expect(normal).toEqual({ ...event, latencyMs: 12 })
  })

  it("keeps at most the documented number of attempts and says how many there were", () => {
    const attempts = Array.from({ length: 40 }, () => ({ provider: "p\u0000", model: "m", outcome: "error" as const, status: 503, ms: 1.5 }))
    const normal = normaliseUsageEvent(usageEvent({ attempts }))
    expect(normal.attempts).toHaveLength(usageBounds.maxAttemptsKept)
    expect(normal.attempts[0]).toEqual({ provider: "p", model: "m", outcome: "error", status: 503, ms: 2 })
    expect(normal.raw?.["attempts"]).toBe(40)
  })

  it.prop(
    "any figures and names end inside the ledger's columns, and normalising twice changes nothing",
    { prompt: Figure, completion: Figure, cached: Figure, units: Figure, cost: Figure, model: Name, provider: Name },
    ({ prompt, completion, cached, units, cost, model, provider }) => {
      const normal = normaliseUsageEvent(
        usageEvent({ promptTokens: prompt, completionTokens: completion, cachedTokens: cached, units, costNanoUsd: cost, requestedModel: model, provider })
      )
      inColumns(normal)
      expect(normaliseUsageEvent(normal)).toEqual(normal)
      // The raw figures survive JSON (the detail column): non-finite numbers are kept as text.
      expect(JSON.parse(JSON.stringify(normal.raw ?? {}))).toEqual(normal.raw ?? {})
    }
  )

  it("cuts text without leaving half a surrogate pair and replaces lone halves", () => {
    expect(cleanText("ab😀", 3)).toBe("ab")
    expect(cleanText("a\ud800b\udc00", 10)).toBe("a\ufffdb\ufffd")
  })
})

describe("usage on the wire", () => {
  it("has cached_tokens and cache_write_tokens for every provider, 0 where none were reported", () => {
    expect(usageToWire({ promptTokens: 3, completionTokens: 2 })).toEqual({
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }
    })
  })

  it("reports whole figures even when the provider did not", () => {
    const wire = usageToWire({ promptTokens: 12.5, completionTokens: 3e9, cachedTokens: 1.2 })
    expect(wire).toMatchObject({ prompt_tokens: 13, completion_tokens: usageBounds.maxTokens, prompt_tokens_details: { cached_tokens: 1 } })
    expect(wire.total_tokens).toBe(13 + usageBounds.maxTokens)
    expect(normaliseUsage({ promptTokens: 1, completionTokens: 2 }).raw).toBeUndefined()
  })
})
