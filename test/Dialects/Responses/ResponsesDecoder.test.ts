import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { chatRequestOf, decodeResponsesRequest } from "../../../src/Dialects/Responses/ResponsesDecoder.ts"
import type { GatewayError } from "../../../src/Domain/GatewayError.ts"

const decode = (body: Record<string, unknown>) => Effect.runSync(decodeResponsesRequest({ model: "m", ...body }))
const call = (body: Record<string, unknown>) => {
  const create = decode(body)
  return chatRequestOf(create, create.input)
}
const failure = (body: Record<string, unknown>) => {
  const exit = Effect.runSyncExit(decodeResponsesRequest({ model: "m", ...body }))
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = (exit.cause as unknown as { reasons: Array<{ error: GatewayError }> }).reasons[0]!.error
  return error.reason as { _tag: string; param?: string; message: string }
}

describe("Responses decoder", () => {
  it("a string input is one user message; instructions come first as a system message", () => {
    const { chat } = call({ input: "hi", instructions: "Be brief.", max_output_tokens: 50, temperature: 0.3, safety_identifier: "u1" })
    expect(chat.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" }
    ])
    expect(chat).toMatchObject({ max_completion_tokens: 50, temperature: 0.3, user: "u1", stream: false, n: 1 })
  })

  it("assistant items of one turn become one assistant message; outputs become tool messages", () => {
    const { chat } = call({
      input: [
        { role: "user", content: [{ type: "input_text", text: "weather?" }] },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "think" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
        { type: "function_call", call_id: "call_2", name: "get_time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "noon" }] },
        { role: "developer", content: "Answer in French." }
      ]
    })
    expect(chat.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: "Checking.",
        reasoning_content: "think",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
          { id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } }
        ]
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "noon" },
      { role: "system", content: "Answer in French." }
    ])
  })

  it("images and files map to the chat parts; tools, tool_choice and text.format to theirs", () => {
    const { chat, translation } = call({
      input: [{
        role: "user",
        content: [
          { type: "input_image", image_url: "https://example.com/a.png", detail: "low" },
          { type: "input_file", file_id: "file-1" }
        ]
      }],
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: true }],
      tool_choice: { type: "function", name: "f" },
      text: { format: { type: "json_schema", name: "out", schema: { type: "object" } }, verbosity: "low" }
    })
    expect(chat.messages[0]).toEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } }, { type: "file", file: { file_id: "file-1" } }]
    })
    expect(chat.tools).toEqual([{ type: "function", function: { name: "f", parameters: { type: "object" }, strict: true } }])
    expect(chat.tool_choice).toEqual({ type: "function", function: { name: "f" } })
    expect(chat.response_format).toEqual({ type: "json_schema", json_schema: { name: "out", schema: { type: "object" } } })
    expect(chat.translation?.origins.response_format).toBe("text.format")
    expect(translation.dropped).toEqual(["text.verbosity"])
  })

  it("names the field of every mistake", () => {
    expect(failure({ input: [{ role: "robot", content: "x" }] }).param).toBe("input[0].role")
    expect(failure({ input: [{ role: "user", content: [{ type: "output_text", text: "x" }] }] }).param).toBe("input[0].content[0].type")
    expect(failure({ input: [{ type: "web_search_call", id: "x" }] }).param).toBe("input[0].type")
    expect(failure({ input: "hi", tools: [{ type: "web_search" }] }).param).toBe("tools[0].type")
    expect(failure({ input: "hi", tools: [{ type: "function", name: "f" }], tool_choice: { type: "function", name: "g" } }).param).toBe("tool_choice.name")
    expect(failure({ input: "hi", temperature: 3 }).param).toBe("temperature")
    expect(failure({ input: "hi", background: true }).param).toBe("background")
    expect(failure({ input: "hi", seed: 1 })).toMatchObject({ param: "seed", message: "Unrecognized request argument supplied: 'seed'." })
    expect(failure({ input: [] }).param).toBe("input")
  })
})
