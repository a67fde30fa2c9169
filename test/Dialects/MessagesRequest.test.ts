import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { decodeMessagesRequest, type MessagesRequest } from "../../src/Dialects/Messages/MessagesRequest.ts"
import type { GatewayError } from "../../src/Domain/GatewayError.ts"

const base = { model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }
const decode = (body: Record<string, unknown>): MessagesRequest => Effect.runSync(decodeMessagesRequest({ ...base, ...body }))
const refusal = (body: Record<string, unknown>) => {
  const exit = Effect.runSyncExit(decodeMessagesRequest({ ...base, ...body }))
  if (Exit.isSuccess(exit)) throw new Error("expected a refusal")
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  return (failure as { error: GatewayError }).error.reason as { _tag: string; param?: string; message: string }
}

describe("the Messages decoder", () => {
  it("system, a tool round trip and thinking history become neutral messages", () => {
    const { chat } = decode({
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Use the tool.", signature: "sig" },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
          ]
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] }, { type: "text", text: "and?" }] }
      ]
    })
    expect(chat.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }],
        reasoning_content: "Use the tool."
      },
      { role: "tool", tool_call_id: "toolu_1", content: "sunny" },
      { role: "user", content: [{ type: "text", text: "and?" }] }
    ])
    expect(chat.tool_choice).toBe("required")
    expect(chat.parallel_tool_calls).toBe(false)
    expect(chat.translation).toEqual({
      origins: { max_completion_tokens: "max_tokens", parallel_tool_calls: "tool_choice.disable_parallel_tool_use" },
      rewritten: [],
      dropped: ["cache_control", "thinking"]
    })
  })

  it("images and PDF documents become the neutral parts chat completions uses", () => {
    const { chat } = decode({
      messages: [{
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "report.pdf" }
        ]
      }]
    })
    expect(chat.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
        { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "report.pdf", mime_type: "application/pdf" } }
      ]
    })
  })

  it("parts only Anthropic can read make the request native-only, naming the first", () => {
    expect(decode({ tools: [{ type: "web_search_20250305", name: "web_search" }] }).requiresNative).toBe("tools[0].type")
    const image = decode({
      messages: [
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "image", source: { type: "url", url: "https://x/y.png" } }] }] }
      ]
    })
    expect(image.requiresNative).toBe("messages[0].content[0].content[0]")
    expect(decode({}).requiresNative).toBeUndefined()
  })

  it("refuses by name: a missing max_tokens, an unknown field, a bad block, temperature above 1", () => {
    const { max_tokens: _, ...noMax } = base
    const missing = Effect.runSyncExit(decodeMessagesRequest(noMax))
    expect(Exit.isFailure(missing)).toBe(true)
    expect(refusal({ frequency_penalty: 1 })).toMatchObject({ param: "frequency_penalty" })
    expect(refusal({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: "x" } }] }] })).toMatchObject({
      param: "messages[0].content[0].source.media_type"
    })
    expect(refusal({ messages: [{ role: "user", content: [{ type: "video" }] }] })).toMatchObject({ param: "messages[0].content[0].type" })
    expect(refusal({ temperature: 1.5 })).toMatchObject({ param: "temperature" })
  })
})
