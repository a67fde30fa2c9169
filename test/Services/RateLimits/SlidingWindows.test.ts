import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { formatReset } from "../../../src/Services/RateLimits/RateLimitHeaders.ts"
import { SlidingWindows, windowMs } from "../../../src/Services/RateLimits/SlidingWindows.ts"
import { memoryWindowStore } from "../../../src/Services/RateLimits/WindowStore.ts"

const Request = Schema.Struct({
  gapMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20_000 })),
  tokens: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 400 })),
  /** Tokens actually used, as a share of the estimate (settlement corrects downwards). */
  usedPercent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))
})
const Requests = Schema.Array(Request).check(Schema.isMaxLength(120))
const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000 }))

/** The weight admitted in every 60-second interval that starts at an admission. */
const heaviestMinute = (admitted: ReadonlyArray<{ at: number; weight: number }>): number => {
  let max = 0
  for (const start of admitted) {
    let sum = 0
    for (const entry of admitted) if (entry.at >= start.at && entry.at < start.at + windowMs) sum += entry.weight
    max = Math.max(max, sum)
  }
  return max
}

describe("sliding windows", () => {
  it.effect.prop("RPM and TPM over any minute never exceed their limits, corrections included", { requests: Requests, rpm: Limit, tpm: Limit }, ({ requests, rpm, tpm }) =>
    Effect.gen(function* () {
      const store = memoryWindowStore()
      const counted: Array<{ at: number; weight: number }> = []
      const tokens: Array<{ at: number; weight: number }> = []
      let now = 0
      for (const [i, request] of requests.entries()) {
        yield* TestClock.adjust(request.gapMs)
        now += request.gapMs
        const charges = [{ id: "k:r", limit: rpm, weight: 1 }, { id: "k:t", limit: tpm, weight: request.tokens }]
        const decision = yield* store.acquire(charges, `t${i}`)
        if (!decision.admitted) {
          expect(decision.retryAfterMs).toBeGreaterThan(0)
          expect(decision.retryAfterMs).toBeLessThanOrEqual(windowMs)
          continue
        }
        counted.push({ at: now, weight: 1 })
        const used = Math.floor((request.tokens * request.usedPercent) / 100)
        yield* store.adjust(`t${i}`, [{ id: "k:t", from: request.tokens, to: used }])
        tokens.push({ at: now, weight: used })
        for (const state of decision.states) expect(state.remaining).toBeGreaterThanOrEqual(0)
      }
      expect(heaviestMinute(counted)).toBeLessThanOrEqual(rpm)
      expect(heaviestMinute(tokens)).toBeLessThanOrEqual(tpm)
    }))

  it.prop("a refused request is admitted once its Retry-After has passed, and not a millisecond before", { weights: Schema.Array(Limit).check(Schema.isMinLength(1), Schema.isMaxLength(30)), limit: Limit }, ({ weights, limit }) => {
    const windows = new SlidingWindows()
    let now = 1_000_000
    for (const [i, weight] of weights.entries()) {
      now += 997
      const charge = [{ id: "w", limit, weight: Math.min(weight, limit) }]
      const decision = windows.acquire(charge, `a${i}`, now)
      if (decision.admitted) continue
      const before = new SlidingWindows()
      // Replays the same history on a copy, to ask one millisecond early without changing the original.
      let replay = 1_000_000
      for (const [j, w] of weights.slice(0, i).entries()) {
        replay += 997
        before.acquire([{ id: "w", limit, weight: Math.min(w, limit) }], `a${j}`, replay)
      }
      expect(before.acquire(charge, "early", now + decision.retryAfterMs - 1).admitted).toBe(false)
      expect(windows.acquire(charge, `a${i}`, now + decision.retryAfterMs).admitted).toBe(true)
      return
    }
  })

  it("a request heavier than the limit is refused as too large, and nothing is charged for it", () => {
    const windows = new SlidingWindows()
    const decision = windows.acquire([{ id: "r", limit: 10, weight: 1 }, { id: "t", limit: 100, weight: 101 }], "big", 0)
    expect(decision).toMatchObject({ admitted: false, tooLarge: true, retryAfterMs: windowMs })
    expect(windows.used("r", 0)).toBe(0)
  })

  it("reset durations are written as OpenAI writes them", () => {
    expect([formatReset(20), formatReset(1500), formatReset(60_000), formatReset(61_250)]).toEqual(["20ms", "1.5s", "1m0s", "1m1.25s"])
  })
})
