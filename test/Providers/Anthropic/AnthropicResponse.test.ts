import { describe, expect, it } from "@effect/vitest"
import { completionFromAnthropic } from "../../../src/Providers/Anthropic/AnthropicResponse.ts"
import { finishFromAnthropic, usageFromAnthropic } from "../../../src/Providers/Anthropic/AnthropicUsage.ts"
import { usageToWire } from "../../../src/Domain/Usage.ts"
import { anthropicMessage, toolUse } from "../../support/AnthropicFixtures.ts"

describe("Anthropic response", () => {
  it("maps a text message to one choice with usage", () => {
    const completion = completionFromAnthropic(anthropicMessage())!
    expect(completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "Hello there!", refusal: null }, finish_reason: "stop", logprobs: null }
    ])
    expect(completion.usage).toEqual({ promptTokens: 19, completionTokens: 10, cachedTokens: 0 })
  })

  it("concatenates text blocks, collects thinking, and turns tool_use blocks into tool calls with their ids", () => {
    const completion = completionFromAnthropic(
      anthropicMessage({
        content: [
          { type: "thinking", thinking: "Weather needs a tool.", signature: "EqQBCgIYAhIM" },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
          { type: "text", text: "Let me " },
          { type: "text", text: "check." },
          toolUse("toolu_01A09q90qw90lq917835lq9", "get_weather", { city: "Paris", days: [1, 2] }),
          toolUse("toolu_01B", "get_time", {})
        ],
        stopReason: "tool_use"
      })
    )!
    const choice = completion.choices[0]!
    expect(choice.message.content).toBe("Let me check.")
    expect(choice.message.reasoning_content).toBe("Weather needs a tool.")
    expect(choice.message.tool_calls).toEqual([
      { id: "toolu_01A09q90qw90lq917835lq9", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\",\"days\":[1,2]}" } },
      { id: "toolu_01B", type: "function", function: { name: "get_time", arguments: "{}" } }
    ])
    expect(choice.finish_reason).toBe("tool_calls")
  })

  it("gives null content when there is no text block", () => {
    const completion = completionFromAnthropic(anthropicMessage({ content: [toolUse("toolu_1", "f", {})], stopReason: "tool_use" }))!
    expect(completion.choices[0]!.message.content).toBeNull()
  })

  it("maps every stop reason", () => {
    const cases = {
      end_turn: "stop",
      stop_sequence: "stop",
      pause_turn: "stop",
      max_tokens: "length",
      model_context_window_exceeded: "length",
      tool_use: "tool_calls",
      refusal: "content_filter",
      something_new: "stop"
    } as const
    for (const [reason, finish] of Object.entries(cases)) {
      expect(finishFromAnthropic(reason)).toBe(finish)
      expect(completionFromAnthropic(anthropicMessage({ stopReason: reason }))!.choices[0]!.finish_reason).toBe(finish)
    }
  })

  it("counts cache reads and writes into prompt tokens and reports them apart", () => {
    const usage = usageFromAnthropic({ input_tokens: 20, cache_read_input_tokens: 60, cache_creation_input_tokens: 20, output_tokens: 5 })
    expect(usage).toEqual({ promptTokens: 100, completionTokens: 5, cachedTokens: 60, cacheWriteTokens: 20 })
    expect(usageToWire(usage)).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 20 }
    })
    expect(usageFromAnthropic({ input_tokens: 7, cache_read_input_tokens: null, cache_creation_input_tokens: null, output_tokens: 2 })).toEqual({
      promptTokens: 7,
      completionTokens: 2,
      cachedTokens: 0
    })
    expect(usageFromAnthropic({ input_tokens: 7, output_tokens: 40, output_tokens_details: { thinking_tokens: 30 } }).reasoningTokens).toBe(30)
  })

  it("is undefined for a body that is not a message", () => {
    expect(completionFromAnthropic({ type: "error", error: { type: "api_error", message: "x" } })).toBeUndefined()
    expect(completionFromAnthropic([1, 2])).toBeUndefined()
    expect(completionFromAnthropic({ type: "message" })).toBeUndefined()
  })
})
