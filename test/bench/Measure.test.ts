import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type Phase, summarise, throughputShare } from "../../bench/Measure.ts"

const phase = (rps: number): Phase => ({
  rps,
  p50: 1,
  p99: 2,
  ttfbP50: undefined,
  ttfbP99: undefined,
  ttfcP50: undefined,
  seconds: 1,
  completed: Math.round(rps),
  errors: 0,
  cpuMsPerRequest: 0.1,
  childCpuMsPerRequest: 0,
  peakRssMb: 100,
  stealPct: 0
})
const summaryOf = (rates: ReadonlyArray<number>) => summarise(rates.map(phase))

// The machine's speed in a round, as a factor (the VM's drifts two- or threefold within a minute).
const Speeds = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 10, maximum: 100 }))).check(Schema.isMinLength(1), Schema.isMaxLength(9))
const Percent = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))

describe("throughput share of two targets of one run", () => {
  it.prop(
    "a target at a constant share of another in every round is reported at that share, whatever the drift",
    { speeds: Speeds, percent: Percent },
    ({ speeds, percent }) => {
      const b = summaryOf(speeds.map((s) => s * 100))
      const a = summaryOf(speeds.map((s) => s * percent))
      expect(throughputShare(a, b)).toBeCloseTo(percent / 100, 9)
    }
  )

  it("one target's fast round set against the other's slow one does not decide the share", () => {
    // Half of b in every round but the last, where the machine slowed for b's measurement only.
    const a = summaryOf([100, 300, 250])
    const b = summaryOf([200, 600, 260])
    expect(a.rps / b.rps).toBeCloseTo(250 / 260, 9)
    expect(throughputShare(a, b)).toBe(0.5)
  })

  it("without rounds in common it is the ratio of the medians", () => {
    const a = summaryOf([100, 300, 250])
    const b = summaryOf([200, 600])
    expect(throughputShare(a, b)).toBe(250 / 400)
  })
})
