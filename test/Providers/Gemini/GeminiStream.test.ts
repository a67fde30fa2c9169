import { describe, expect, it } from "@effect/vitest"
import { geminiStreamComplete, geminiStreamStep, initialGeminiStreamState } from "../../../src/Providers/Gemini/GeminiStream.ts"
import { geminiResponse } from "../GeminiKit.ts"

const step = (state: ReturnType<typeof initialGeminiStreamState>, value: unknown) =>
  geminiStreamStep(state, typeof value === "string" ? value : JSON.stringify(value))
const events = (state: ReturnType<typeof initialGeminiStreamState>, value: unknown) => {
  const result = step(state, value)
  if (result._tag !== "Events") throw new Error(`expected events, got ${result.message}`)
  return result.events
}

describe("geminiStreamStep", () => {
  it("emits text and reasoning deltas, then finish and usage", () => {
    const state = initialGeminiStreamState(1)
    expect(events(state, geminiResponse([{ text: "Thinking", thought: true }], { finishReason: null }))).toEqual([
      { _tag: "ReasoningDelta", choice: 0, text: "Thinking" }
    ])
    expect(geminiStreamComplete(state)).toBe(false)
    expect(events(state, geminiResponse([{ text: "Hi" }], { usage: { promptTokenCount: 3, candidatesTokenCount: 1, thoughtsTokenCount: 2 } }))).toEqual([
      { _tag: "TextDelta", choice: 0, text: "Hi" },
      { _tag: "Finish", choice: 0, reason: "stop" },
      { _tag: "Usage", usage: { promptTokens: 3, completionTokens: 3, reasoningTokens: 2 } }
    ])
    expect(geminiStreamComplete(state)).toBe(true)
  })

  it("emits a whole function call as its start and one piece of arguments, numbering calls per candidate", () => {
    const state = initialGeminiStreamState(1)
    const out = events(state, geminiResponse([{ functionCall: { name: "a", args: { x: 1 } } }, { functionCall: { name: "b" } }]))
    expect(out.map((e) => e._tag)).toEqual(["ToolCallStart", "ToolCallDelta", "ToolCallStart", "ToolCallDelta", "Finish"])
    expect(out[0]).toMatchObject({ toolIndex: 0, name: "a" })
    expect(out[1]).toEqual({ _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "{\"x\":1}" })
    expect(out[2]).toMatchObject({ toolIndex: 1, name: "b" })
    expect(out[3]).toEqual({ _tag: "ToolCallDelta", choice: 0, toolIndex: 1, arguments: "{}" })
  })

  it("ignores a candidate's chunks after its finish", () => {
    const state = initialGeminiStreamState(1)
    events(state, geminiResponse([{ text: "done" }]))
    expect(events(state, geminiResponse([{ text: "late" }]))).toEqual([])
  })

  it("attaches logprobs to the chunk's first text delta", () => {
    const state = initialGeminiStreamState(1)
    const chunk = geminiResponse([{ text: "Hi" }], { finishReason: null })
    const out = events(state, { ...chunk, candidates: [{ ...chunk.candidates[0], logprobsResult: { chosenCandidates: [{ token: "Hi", logProbability: -0.5 }], topCandidates: [] } }] })
    expect(out).toEqual([
      { _tag: "TextDelta", choice: 0, text: "Hi", logprobs: { content: [{ token: "Hi", logprob: -0.5, bytes: [72, 105], top_logprobs: [] }] } }
    ])
  })

  it("ends every candidate of a blocked prompt with the reason as refusal", () => {
    const state = initialGeminiStreamState(2)
    const out = events(state, { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 7 } })
    expect(out.filter((e) => e._tag === "Finish")).toEqual([
      { _tag: "Finish", choice: 0, reason: "content_filter" },
      { _tag: "Finish", choice: 1, reason: "content_filter" }
    ])
    expect(out.filter((e) => e._tag === "RefusalDelta").map((e) => e.choice)).toEqual([0, 1])
    expect(geminiStreamComplete(state)).toBe(true)
  })

  it("reports an error object as a failure, retryable for server-side codes only", () => {
    const state = initialGeminiStreamState(1)
    expect(step(state, { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } })).toEqual({
      _tag: "Error",
      message: "The model is overloaded.",
      retryable: true
    })
    expect(step(state, { error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } })).toMatchObject({ retryable: false })
    expect(step(state, "{not json")).toMatchObject({ _tag: "Error" })
  })
})
