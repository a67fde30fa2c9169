import { describe, expect, it } from "@effect/vitest"
import type { ChatStreamEvent } from "../../../src/Domain/ChatStreamEvent.ts"
import {
  anthropicStreamStep,
  type AnthropicStreamStep,
  initialAnthropicStreamState
} from "../../../src/Providers/Anthropic/AnthropicStream.ts"
import {
  type AnthropicEvent,
  blockStop,
  errorEvent,
  jsonDelta,
  messageDelta,
  messageStart,
  messageStop,
  ping,
  signatureDelta,
  textDelta,
  textStart,
  thinkingDelta,
  thinkingStart,
  toolStart
} from "../../support/AnthropicFixtures.ts"

/** Runs events through one codec state; returns every step. */
const run = (events: ReadonlyArray<AnthropicEvent>): Array<AnthropicStreamStep> => {
  const state = initialAnthropicStreamState()
  return events.map((e) => anthropicStreamStep(state, e.event, JSON.stringify(e.data)))
}
const emitted = (steps: ReadonlyArray<AnthropicStreamStep>): Array<ChatStreamEvent> =>
  steps.flatMap((s) => (s._tag === "Events" ? s.events : []))
const without = (events: ReadonlyArray<ChatStreamEvent>, tag: ChatStreamEvent["_tag"]) => events.filter((e) => e._tag !== tag)

describe("Anthropic stream codec", () => {
  it("translates text deltas, the stop reason and cumulative usage; ping is nothing; message_stop is Done", () => {
    const steps = run([messageStart({ input_tokens: 12, output_tokens: 1 }), textStart(0), ping(), textDelta(0, "Hi"), blockStop(0), messageDelta("end_turn", { output_tokens: 3 }), messageStop()])
    expect(without(emitted(steps), "Usage")).toEqual([
      { _tag: "TextDelta", choice: 0, text: "Hi" },
      { _tag: "Finish", choice: 0, reason: "stop" }
    ])
    const usages = emitted(steps).filter((e) => e._tag === "Usage")
    expect(usages.at(-1)).toEqual({ _tag: "Usage", usage: { promptTokens: 12, completionTokens: 3, cachedTokens: 0 } })
    expect(steps.at(-1)).toEqual({ _tag: "Done" })
    expect(steps[2]).toEqual({ _tag: "Events", events: [] })
  })

  it("keeps the input side of message_start when message_delta leaves it out or nulls it", () => {
    const steps = run([
      messageStart({ input_tokens: 10, cache_read_input_tokens: 50, cache_creation_input_tokens: 5, output_tokens: 1 }),
      messageDelta("end_turn", { input_tokens: null, cache_read_input_tokens: null, output_tokens: 9 })
    ])
    expect(emitted(steps).filter((e) => e._tag === "Usage").at(-1)).toEqual({
      _tag: "Usage",
      usage: { promptTokens: 65, completionTokens: 9, cachedTokens: 50, cacheWriteTokens: 5 }
    })
  })

  it("starts each tool_use block as the next tool call and streams its input_json_delta pieces", () => {
    const events = emitted(run([
      messageStart(),
      toolStart(1, "toolu_A", "get_weather"),
      jsonDelta(1, ""),
      jsonDelta(1, "{\"city\":"),
      toolStart(2, "toolu_B", "get_time"),
      jsonDelta(2, "{}"),
      jsonDelta(1, "\"Paris\"}"),
      blockStop(1),
      blockStop(2),
      messageDelta("tool_use")
    ]))
    expect(without(events, "Usage")).toEqual([
      { _tag: "ToolCallStart", choice: 0, toolIndex: 0, id: "toolu_A", name: "get_weather" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "{\"city\":" },
      { _tag: "ToolCallStart", choice: 0, toolIndex: 1, id: "toolu_B", name: "get_time" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 1, arguments: "{}" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "\"Paris\"}" },
      { _tag: "Finish", choice: 0, reason: "tool_calls" }
    ])
  })

  it("gives a tool without input the arguments {} when its block stops", () => {
    const events = without(emitted(run([messageStart(), toolStart(0, "toolu_A", "get_time"), jsonDelta(0, ""), blockStop(0), blockStop(0)])), "Usage")
    expect(events).toEqual([
      { _tag: "ToolCallStart", choice: 0, toolIndex: 0, id: "toolu_A", name: "get_time" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "{}" }
    ])
  })

  it("takes a complete input carried by the block start as the whole argument", () => {
    const start: AnthropicEvent = {
      event: "content_block_start",
      data: { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_A", name: "f", input: { a: 1 } } }
    }
    expect(without(emitted(run([messageStart(), start, blockStop(0)])), "Usage")).toEqual([
      { _tag: "ToolCallStart", choice: 0, toolIndex: 0, id: "toolu_A", name: "f" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "{\"a\":1}" }
    ])
  })

  it("streams thinking as reasoning, and the signed block whole when it stops", () => {
    const events = without(emitted(run([messageStart(), thinkingStart(0), thinkingDelta(0, "Let me think"), signatureDelta(0), blockStop(0)])), "Usage")
    expect(events).toEqual([
      { _tag: "ReasoningDelta", choice: 0, text: "Let me think" },
      {
        _tag: "ReasoningSigned",
        choice: 0,
        detail: { provider: "anthropic", type: "thinking", text: "Let me think", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" }
      }
    ])
  })

  it("ignores a repeated message_start and a repeated block start", () => {
    const events = emitted(run([messageStart({ input_tokens: 12, output_tokens: 1 }), messageStart({ input_tokens: 99, output_tokens: 99 }), toolStart(0, "toolu_A", "f"), toolStart(0, "toolu_A", "f")]))
    expect(events.filter((e) => e._tag === "Usage")).toHaveLength(1)
    expect(events.filter((e) => e._tag === "ToolCallStart")).toHaveLength(1)
  })

  it("maps refusal and max_tokens stops", () => {
    expect(emitted(run([messageDelta("refusal")]))[0]).toEqual({ _tag: "Finish", choice: 0, reason: "content_filter" })
    expect(emitted(run([messageDelta("max_tokens")]))[0]).toEqual({ _tag: "Finish", choice: 0, reason: "length" })
  })

  it("turns an error event into an Error step, retryable only for overload and internal errors", () => {
    expect(run([errorEvent("overloaded_error", "Overloaded")])[0]).toEqual({ _tag: "Error", message: "Overloaded", type: "overloaded_error", retryable: true })
    expect(run([errorEvent("api_error", "Internal")])[0]).toMatchObject({ _tag: "Error", retryable: true })
    expect(run([errorEvent("invalid_request_error", "bad")])[0]).toMatchObject({ _tag: "Error", retryable: false })
  })

  it("reports a payload that is not JSON as malformed and skips unknown event types", () => {
    const state = initialAnthropicStreamState()
    expect(anthropicStreamStep(state, "content_block_delta", "{\"type\":")).toEqual({ _tag: "Malformed" })
    expect(anthropicStreamStep(state, "future_event", "{\"type\":\"future_event\",\"x\":1}")).toEqual({ _tag: "Events", events: [] })
  })
})
