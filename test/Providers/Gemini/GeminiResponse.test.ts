import { describe, expect, it } from "@effect/vitest"
import { completionFromGemini } from "../../../src/Providers/Gemini/GeminiResponse.ts"
import { finishFromGemini, usageFromGemini } from "../../../src/Providers/Gemini/GeminiUsage.ts"
import { geminiResponse } from "../GeminiKit.ts"

const usage = { promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 }

describe("completionFromGemini", () => {
  it("maps text, finish and usage", () => {
    const completion = completionFromGemini(geminiResponse([{ text: "Hello " }, { text: "world" }], { usage }), 1)
    expect(completion).toEqual({
      choices: [{ index: 0, message: { role: "assistant", content: "Hello world", refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { promptTokens: 20, completionTokens: 8 }
    })
  })

  it("maps thought parts to reasoning_content, apart from the answer", () => {
    const message = completionFromGemini(geminiResponse([{ text: "Weighing options", thought: true }, { text: "42" }], { usage }), 1)!.choices[0]!.message
    expect(message).toMatchObject({ content: "42", reasoning_content: "Weighing options" })
  })

  it("maps function calls to tool calls with generated ids and finish tool_calls", () => {
    const choice = completionFromGemini(
      geminiResponse([{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_time" } }], { usage }),
      1
    )!.choices[0]!
    expect(choice.finish_reason).toBe("tool_calls")
    expect(choice.message.content).toBeNull()
    const calls = choice.message.tool_calls!
    expect(calls.map((c) => [c.function.name, c.function.arguments])).toEqual([["get_weather", "{\"city\":\"Paris\"}"], ["get_time", "{}"]])
    for (const call of calls) expect(call.id).toMatch(/^call_[A-Za-z0-9_-]{16}$/)
    expect(new Set(calls.map((c) => c.id)).size).toBe(2)
  })

  it("keeps an id the API gives a function call", () => {
    const call = completionFromGemini(geminiResponse([{ functionCall: { id: "fc-7", name: "f", args: {} } }]), 1)!.choices[0]!.message.tool_calls![0]!
    expect(call.id).toBe("fc-7")
  })

  it("keeps one choice per candidate, in index order", () => {
    const body = {
      candidates: [
        { content: { role: "model", parts: [{ text: "B" }] }, finishReason: "MAX_TOKENS", index: 1 },
        { content: { role: "model", parts: [{ text: "A" }] }, finishReason: "STOP", index: 0 }
      ],
      usageMetadata: usage
    }
    expect(completionFromGemini(body, 2)!.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, "A", "stop"],
      [1, "B", "length"]
    ])
  })

  it("maps a filtered candidate without content to content_filter", () => {
    const body = { candidates: [{ finishReason: "SAFETY", index: 0, safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] }], usageMetadata: usage }
    expect(completionFromGemini(body, 1)!.choices[0]).toMatchObject({ message: { content: null }, finish_reason: "content_filter" })
  })

  it("answers a blocked prompt with content_filter and the reason as refusal, for each requested choice", () => {
    const body = { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } }
    const completion = completionFromGemini(body, 2)!
    expect(completion.choices).toHaveLength(2)
    for (const choice of completion.choices) {
      expect(choice.finish_reason).toBe("content_filter")
      expect(choice.message.content).toBeNull()
      expect(choice.message.refusal).toContain("PROHIBITED_CONTENT")
    }
    expect(completion.usage).toEqual({ promptTokens: 9, completionTokens: 0 })
  })

  it("maps logprobsResult to the chat wire's logprobs", () => {
    const body = geminiResponse([{ text: "Hi!" }], { usage })
    const candidate = {
      ...body.candidates[0],
      logprobsResult: {
        topCandidates: [
          { candidates: [{ token: "Hi", logProbability: -0.1 }, { token: "Hello", logProbability: -2.5 }] },
          { candidates: [{ token: "!", logProbability: -0.01 }] }
        ],
        chosenCandidates: [{ token: "Hi", logProbability: -0.1 }, { token: "!", logProbability: -0.01 }]
      }
    }
    expect(completionFromGemini({ ...body, candidates: [candidate] }, 1)!.choices[0]!.logprobs).toEqual({
      content: [
        {
          token: "Hi",
          logprob: -0.1,
          bytes: [72, 105],
          top_logprobs: [{ token: "Hi", logprob: -0.1, bytes: [72, 105] }, { token: "Hello", logprob: -2.5, bytes: [72, 101, 108, 108, 111] }]
        },
        { token: "!", logprob: -0.01, bytes: [33], top_logprobs: [{ token: "!", logprob: -0.01, bytes: [33] }] }
      ]
    })
  })

  it("is undefined for bodies that are not a response", () => {
    expect(completionFromGemini("nope", 1)).toBeUndefined()
    expect(completionFromGemini({ usageMetadata: usage }, 1)).toBeUndefined()
  })
})

describe("usageFromGemini", () => {
  it("counts thoughts as completion and reasoning, cached tokens inside the prompt", () => {
    expect(
      usageFromGemini({ promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 5, thoughtsTokenCount: 40, totalTokenCount: 145 })
    ).toEqual({ promptTokens: 100, completionTokens: 45, cachedTokens: 60, reasoningTokens: 40 })
  })

  it("adds tool-use prompt tokens to the prompt and reports audio prompt tokens", () => {
    expect(
      usageFromGemini({
        promptTokenCount: 300,
        toolUsePromptTokenCount: 50,
        candidatesTokenCount: 10,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: 100 }, { modality: "AUDIO", tokenCount: 200 }]
      })
    ).toEqual({ promptTokens: 350, completionTokens: 10, audioPromptTokens: 200 })
  })

  it("has no cache-write count, because Gemini reports none", () => {
    expect(usageFromGemini({ promptTokenCount: 1, cachedContentTokenCount: 1 }).cacheWriteTokens).toBeUndefined()
  })

  it("is zero for a missing usage object", () => {
    expect(usageFromGemini(undefined)).toEqual({ promptTokens: 0, completionTokens: 0 })
  })
})

describe("finishFromGemini", () => {
  it.each([
    ["STOP", "stop"],
    ["MAX_TOKENS", "length"],
    ["SAFETY", "content_filter"],
    ["RECITATION", "content_filter"],
    ["BLOCKLIST", "content_filter"],
    ["PROHIBITED_CONTENT", "content_filter"],
    ["SPII", "content_filter"],
    ["IMAGE_SAFETY", "content_filter"],
    ["LANGUAGE", "stop"],
    ["OTHER", "stop"],
    ["MALFORMED_FUNCTION_CALL", "stop"],
    ["FINISH_REASON_UNSPECIFIED", "stop"],
    [undefined, "stop"]
  ])("maps %s to %s", (reason, expected) => {
    expect(finishFromGemini(reason)).toBe(expected)
  })
})
