import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  argmax,
  confidence,
  distributionFromLogprobs,
  distributionFromSamples,
  expectedIndex,
  labelOfAnswer,
  sampleSmoothing,
  type TopToken
} from "../../src/Domain/DecisionProbabilities.ts"

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const labelSets: ReadonlyArray<ReadonlyArray<string>> = [
  ["Yes", "No"],
  ["A", "B", "C"],
  [...letters],
  ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
]
const others = ["The", " the", "Answer", "\n", "**", "I", " Maybe", "10", "AB", "Yess"]

const Between = (minimum: number, maximum: number) => Schema.Finite.check(Schema.isBetween({ minimum, maximum }))
const Index = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum }))

/**
 * One listed token: a label (by index, wrapped in whitespace and in either case) or another
 * token; any log-probability, occasionally -Infinity or NaN. Lists may repeat a token exactly.
 */
const Entry = Schema.Struct({
  label: Schema.Boolean,
  index: Index(25),
  before: Schema.Literals(["", " ", "  ", "\n", "\t"]),
  after: Schema.Literals(["", " ", "\n"]),
  lower: Schema.Boolean,
  logprob: Between(-60, 0),
  odd: Schema.Literals(["none", "none ", "none  ", "-inf", "nan", "positive"])
})
const Case = Schema.Struct({ set: Index(3), entries: Schema.Array(Entry).check(Schema.isMaxLength(24)) })

const tokensOf = ({ set, entries }: typeof Case.Type): { labels: ReadonlyArray<string>; tokens: Array<TopToken> } => {
  const labels = labelSets[set]!
  const tokens = entries.map((e): TopToken => {
    const base = e.label ? labels[e.index % labels.length]! : others[e.index % others.length]!
    const token = e.label ? `${e.before}${e.lower ? base.toLowerCase() : base}${e.after}` : base
    const logprob = e.odd === "-inf" ? -Infinity : e.odd === "nan" ? NaN : e.odd === "positive" ? 0.25 : e.logprob
    return { token, logprob }
  })
  return { labels, tokens }
}

const present = (labels: ReadonlyArray<string>, tokens: ReadonlyArray<TopToken>) =>
  tokens.some((t) => Number.isFinite(t.logprob) && labels.some((l) => l.toUpperCase() === t.token.trim().toUpperCase()))

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

describe("distributionFromLogprobs", () => {
  it.prop("any list with a label: a distribution over the labels summing to 1, argmax and confidence well defined", { c: Case }, ({ c }) => {
    const { labels, tokens } = tokensOf(c)
    const distribution = distributionFromLogprobs(labels, tokens)
    if (!present(labels, tokens)) {
      expect(distribution).toBeUndefined()
      return
    }
    expect(distribution).toBeDefined()
    const d = distribution!
    expect(d).toHaveLength(labels.length)
    expect(Math.abs(sum(d) - 1)).toBeLessThan(1e-9)
    for (const p of d) expect(p >= 0 && p <= 1).toBe(true)
    const best = argmax(d)
    for (const p of d) expect(p).toBeLessThanOrEqual(d[best]!)
    const c01 = confidence(d)
    expect(c01 >= 0 && c01 <= 1).toBe(true)
    // Neither the order of the list nor an exact repeat of a listed token changes anything.
    expect(distributionFromLogprobs(labels, [...tokens].reverse())).toEqual(d.map((p) => expect.closeTo(p, 12)))
    expect(distributionFromLogprobs(labels, [...tokens, ...tokens])).toEqual(d.map((p) => expect.closeTo(p, 12)))
  })

  it("renormalises the labels' probabilities over the labels", () => {
    const d = distributionFromLogprobs(["A", "B", "C"], [
      { token: "A", logprob: Math.log(0.5) },
      { token: "B", logprob: Math.log(0.3) },
      { token: "C", logprob: Math.log(0.1) },
      { token: "The", logprob: Math.log(0.1) }
    ])!
    expect(d[0]).toBeCloseTo(0.5 / 0.9, 12)
    expect(d[1]).toBeCloseTo(0.3 / 0.9, 12)
    expect(d[2]).toBeCloseTo(0.1 / 0.9, 12)
  })

  it("sums whitespace and case variants of a label; counts an exact repeat once", () => {
    const d = distributionFromLogprobs(["Yes", "No"], [
      { token: "Yes", logprob: Math.log(0.4) },
      { token: " Yes", logprob: Math.log(0.2) },
      { token: "yes", logprob: Math.log(0.1) },
      { token: "No", logprob: Math.log(0.3) },
      { token: "No", logprob: Math.log(0.3) }
    ])!
    expect(d[0]).toBeCloseTo(0.7 / 1.0, 12)
    expect(d[1]).toBeCloseTo(0.3 / 1.0, 12)
  })

  it("gives a missing label the floor: half the smaller of the lowest listed probability and its share of the unexplained mass", () => {
    // Listed: 0.6 + 0.2 + 0.05 = 0.85; unexplained 0.15 over 2 missing labels = 0.075; lowest listed 0.05.
    const d = distributionFromLogprobs(["A", "B", "C", "D"], [
      { token: "A", logprob: Math.log(0.6) },
      { token: "B", logprob: Math.log(0.2) },
      { token: "x", logprob: Math.log(0.05) }
    ])!
    const floor = 0.05 / 2
    const total = 0.6 + 0.2 + 2 * floor
    expect(d).toEqual([0.6 / total, 0.2 / total, floor / total, floor / total].map((p) => expect.closeTo(p, 12)))
    // When the listed tokens explain all the mass, a missing label gets nothing.
    expect(distributionFromLogprobs(["Yes", "No"], [{ token: "Yes", logprob: 0 }])).toEqual([1, 0])
  })

  it("has no distribution when no label was listed", () => {
    expect(distributionFromLogprobs(["A", "B"], [{ token: "The", logprob: -0.1 }, { token: "AB", logprob: -3 }])).toBeUndefined()
    expect(distributionFromLogprobs(["A", "B"], [])).toBeUndefined()
  })
})

describe("confidence", () => {
  const Size = Index(24)
  it.prop("1 for a one-hot, 0 for the uniform distribution, over any number of outcomes", { size: Size, at: Index(1000) }, ({ size, at }) => {
    const n = size + 2
    const hot = Array.from({ length: n }, (_, i) => (i === at % n ? 1 : 0))
    expect(confidence(hot)).toBe(1)
    expect(confidence(Array.from({ length: n }, () => 1 / n))).toBeCloseTo(0, 12)
  })

  it.prop("in [0, 1] for any distribution", { weights: Schema.Array(Between(0, 1e6)).check(Schema.isMinLength(2)).check(Schema.isMaxLength(26)) }, ({ weights }) => {
    const total = sum(weights)
    const d = total === 0 ? weights.map(() => 1 / weights.length) : weights.map((w) => w / total)
    const c = confidence(d)
    expect(c >= 0 && c <= 1).toBe(true)
  })

  it("is 1 - H/ln(L)", () => {
    const d = [0.7, 0.2, 0.1]
    const h = -d.reduce((s, p) => s + p * Math.log(p), 0)
    expect(confidence(d)).toBeCloseTo(1 - h / Math.log(3), 12)
  })
})

describe("sampled answers", () => {
  const Samples = Schema.Struct({
    set: Index(3),
    answers: Schema.Array(Schema.Struct({ index: Index(40), wrap: Schema.Literals(["", " ", "**", "\"", "."]) })).check(Schema.isMaxLength(64))
  })
  it.prop("smoothed frequencies: sum 1, every label above 0, the most frequent label most probable", { s: Samples }, ({ s }) => {
    const labels = labelSets[s.set]!
    // Indexes past the labels are answers that are no label at all.
    const texts = s.answers.map((a) => (a.index < labels.length ? a.wrap === "." ? `${labels[a.index]!}.` : `${a.wrap}${labels[a.index]!}${a.wrap}` : "I cannot tell"))
    const counts = labels.map((_, i) => s.answers.filter((a) => a.index === i).length)
    const valid = sum(counts)
    const d = distributionFromSamples(labels, texts)
    if (valid === 0) {
      expect(d).toBeUndefined()
      return
    }
    expect(Math.abs(sum(d!) - 1)).toBeLessThan(1e-9)
    for (const [i, p] of d!.entries()) expect(p).toBeCloseTo((counts[i]! + sampleSmoothing) / (valid + sampleSmoothing * labels.length), 12)
    expect(counts[argmax(d!)]).toBe(Math.max(...counts))
  })

  it("reads a label wrapped in whitespace, quotes, emphasis or a final period, and nothing else", () => {
    expect(labelOfAnswer(["Yes", "No"], " yes.")).toBe(0)
    expect(labelOfAnswer(["A", "B"], "**B**")).toBe(1)
    expect(labelOfAnswer(["A", "B"], "B because")).toBeUndefined()
    expect(labelOfAnswer(["0", "1"], "10")).toBeUndefined()
  })
})

describe("expectedIndex", () => {
  it.prop("lies between the first and the last level", { weights: Schema.Array(Between(0.001, 1)).check(Schema.isMinLength(2)).check(Schema.isMaxLength(10)) }, ({ weights }) => {
    const total = sum(weights)
    const score = expectedIndex(weights.map((w) => w / total))
    expect(score >= -1e-12 && score <= weights.length - 1 + 1e-12).toBe(true)
  })
  it("is sum of index x probability", () => {
    expect(expectedIndex([0.1, 0.2, 0.7])).toBeCloseTo(1.6, 12)
  })
})
