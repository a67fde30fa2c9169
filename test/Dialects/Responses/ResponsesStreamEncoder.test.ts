import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeResponsesRequest } from "../../../src/Dialects/Responses/ResponsesDecoder.ts"
import { ResponsesStreamEncoder } from "../../../src/Dialects/Responses/ResponsesStreamEncoder.ts"
import type { ChatStreamEvent } from "../../../src/Domain/ChatStreamEvent.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"

const encoder = () =>
  new ResponsesStreamEncoder(Effect.runSync(decodeResponsesRequest({ model: "m", input: "hi", max_output_tokens: 5 })), { id: "resp_1", createdAt: 1, model: "m" }, () => 2000)

const play = (events: ReadonlyArray<ChatStreamEvent>) => {
  const e = encoder()
  const out = [...events.flatMap((event) => e.push(event)), ...e.end()]
  for (const event of out) expect(validateStreamEvent(event)).toEqual([])
  expect(out.map((event) => event.sequence_number)).toEqual(out.map((_, i) => i))
  return out
}

describe("Responses stream encoder", () => {
  it("reasoning, then text, then a function call: each item opened and closed in order", () => {
    const out = play([
      { _tag: "ReasoningDelta", choice: 0, text: "Hmm." },
      { _tag: "TextDelta", choice: 0, text: "Let me look." },
      { _tag: "ToolCallStart", choice: 0, toolIndex: 0, id: "call_1", name: "f" },
      { _tag: "ToolCallDelta", choice: 0, toolIndex: 0, arguments: "{}" },
      { _tag: "Finish", choice: 0, reason: "tool_calls" },
      { _tag: "Usage", usage: { promptTokens: 3, completionTokens: 4, reasoningTokens: 2 } }
    ])
    expect(out.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed"
    ])
    const response = out.at(-1)!["response"] as Record<string, any>
    expect(response["output"].map((item: any) => item.type)).toEqual(["reasoning", "message", "function_call"])
    expect(response["usage"]).toMatchObject({ output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } })
  })

  it("a length stop is response.incomplete with max_output_tokens; the message item is incomplete", () => {
    const out = play([{ _tag: "TextDelta", choice: 0, text: "cut" }, { _tag: "Finish", choice: 0, reason: "length" }])
    const last = out.at(-1)!
    expect(last.type).toBe("response.incomplete")
    expect(last["response"]).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, completed_at: null })
    expect((last["response"] as any).output[0].status).toBe("incomplete")
  })

  it("a refusal is its own content part; other choices are ignored", () => {
    const out = play([{ _tag: "RefusalDelta", choice: 0, text: "No." }, { _tag: "TextDelta", choice: 1, text: "ignored" }])
    expect(out.filter((e) => e.type === "response.refusal.done")).toEqual([expect.objectContaining({ refusal: "No.", content_index: 0 })])
    expect(JSON.stringify(out)).not.toContain("ignored")
  })
})
