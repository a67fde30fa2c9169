import { describe, expect, it } from "@effect/vitest"
import type { ChatResult } from "../../../src/Services/Chat/ChatEncoding.ts"
import type { Served } from "../../../src/Services/Routing/RoutedAttempts.ts"
import { type Answered, nothingUsed, type Outcome } from "../../../src/Services/Usage/RequestOutcome.ts"
import { RequestMeter } from "../../../src/Services/Usage/UsageMeter.ts"
import { StreamTally } from "../../../src/Streams/StreamTally.ts"

const served: Served = { model: "gpt-test", provider: "openai", upstreamModel: "gpt-test-2025" }

/**
 * An endpoint's result is the meter's one input, and its type names every field the usage row is
 * priced from. Each `@ts-expect-error` below is a result with one field removed: if the type ever
 * let it through, `tsc` (part of `npm test`) would fail on the unused directive.
 */
describe("an endpoint's result as the meter's input", () => {
  it("does not compile with a meter field missing", () => {
    // @ts-expect-error `usage` removed from an embeddings result
    const noUsage: Outcome<string> = { body: "ok", outcome: { _tag: "Answered", served, units: 0, fixedCostNanoUsd: undefined, translation: undefined } }
    // @ts-expect-error `served` removed from an images result
    const noServed: Outcome<string> = { body: "ok", outcome: { _tag: "Answered", usage: undefined, units: 2, fixedCostNanoUsd: undefined, translation: undefined } }
    // @ts-expect-error `units` removed from a transcription result
    const noUnits: Answered = { _tag: "Answered", served, usage: undefined, fixedCostNanoUsd: undefined, translation: undefined }
    // @ts-expect-error `fixedCostNanoUsd` removed from a tool call's result
    const noPrice: Answered = { _tag: "Answered", served: undefined, usage: undefined, units: 1, translation: undefined }
    // @ts-expect-error `translation` removed from a chat completion's result
    const noReport: Answered = { _tag: "Answered", served, usage: { promptTokens: 1, completionTokens: 1 }, units: 0, fixedCostNanoUsd: undefined }
    // @ts-expect-error a chat completion answered without its outcome
    const noOutcome: ChatResult<string, string> = { _tag: "Json", body: "ok" }
    // @ts-expect-error a stream answered without its tally
    const noTally: ChatResult<string, string> = { _tag: "Stream", chunks: undefined as never, outcome: { _tag: "Streamed", estimatePromptTokens: () => 0, translation: () => undefined } }
    const complete: Answered = { _tag: "Answered", served, usage: { promptTokens: 3, completionTokens: 4 }, units: 0, fixedCostNanoUsd: undefined, translation: undefined }
    expect([noUsage, noServed, noUnits, noPrice, noReport, noOutcome, noTally].every((value) => typeof value === "object")).toBe(true)
    expect(Object.keys(complete).sort()).toEqual(Object.keys(nothingUsed).sort())
  })

  it("a whole answer reaches the meter in one piece", () => {
    const meter = new RequestMeter("req_1")
    expect(meter.served).toBeUndefined()
    expect(meter.streamed).toBe(false)
    meter.record({ _tag: "Answered", served, usage: { promptTokens: 3, completionTokens: 4 }, units: 2, fixedCostNanoUsd: 7, translation: undefined })
    expect(meter.served).toEqual(served)
    expect(meter.usage).toEqual({ promptTokens: 3, completionTokens: 4 })
    expect(meter.units).toBe(2)
    expect(meter.fixedCostNanoUsd).toBe(7)
    expect(meter.streamed).toBe(false)
  })

  it("a stream's tally is read when asked: the route serving last, its usage and report, or an estimate", () => {
    const meter = new RequestMeter("req_2")
    const tally = new StreamTally()
    const reports: Array<string> = []
    meter.record({
      _tag: "Streamed",
      tally,
      estimatePromptTokens: () => 11,
      translation: (route) => {
        reports.push(route.provider)
        return { mapped: [], dropped: [`from ${route.provider}`], rewritten: [] }
      }
    })
    expect(meter.streamed).toBe(true)
    expect(meter.served).toBeUndefined()
    expect(meter.translation).toBeUndefined()
    tally.served = { ...served, provider: "first" }
    expect(meter.translation?.dropped).toEqual(["from first"])
    tally.served = served
    tally.generatedBytes = 40
    tally.firstChunkAt = 1234
    expect(meter.served).toEqual(served)
    expect(meter.translation?.dropped).toEqual(["from openai"])
    expect(meter.translation?.dropped).toEqual(["from openai"])
    // One report per route that served, however often it is read.
    expect(reports).toEqual(["first", "openai"])
    expect(meter.firstTokenAt).toBe(1234)
    expect(meter.usage).toBeUndefined()
    expect(meter.estimatedUsage().promptTokens).toBe(11)
    expect(meter.estimatedUsage().completionTokens).toBeGreaterThan(0)
    tally.usage = { promptTokens: 5, completionTokens: 6 }
    expect(meter.usage).toEqual({ promptTokens: 5, completionTokens: 6 })
  })
})
