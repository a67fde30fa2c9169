import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import type { ToolCall } from "../../Domain/ChatTool.ts"
import * as Ids from "../../Domain/Ids.ts"
import { finishFromAnthropic, usageFromAnthropic } from "./AnthropicUsage.ts"
import { arr, isRecord, str } from "./AnthropicWire.ts"

/**
 * A Messages API `message` as the gateway's completion: text blocks concatenated into
 * `content` (null when there are none), `tool_use` blocks as tool calls with their `toolu_`
 * ids passed through (the client sends them back as `tool_call_id`) and their input as a JSON
 * string, thinking blocks as `reasoning_content`. Redacted thinking and server-tool blocks have
 * no counterpart and are left out. `undefined` when the body is not a message.
 * @see https://platform.claude.com/docs/en/api/messages/create (response)
 */
export const completionFromAnthropic = (body: unknown): ChatCompletion | undefined => {
  if (!isRecord(body) || body["type"] !== "message" || !Array.isArray(body["content"])) return undefined
  const texts: Array<string> = []
  const thinking: Array<string> = []
  const calls: Array<ToolCall> = []
  for (const block of arr(body["content"])) {
    if (!isRecord(block)) continue
    switch (block["type"]) {
      case "text":
        texts.push(str(block["text"]) ?? "")
        break
      case "thinking":
        thinking.push(str(block["thinking"]) ?? "")
        break
      case "tool_use":
        calls.push({
          id: str(block["id"]) ?? Ids.toolCallId(),
          type: "function",
          function: { name: str(block["name"]) ?? "", arguments: JSON.stringify(block["input"] ?? {}) }
        })
        break
    }
  }
  const reasoning = thinking.join("")
  const finish = finishFromAnthropic(body["stop_reason"])
  const stopSequence = body["stop_reason"] === "stop_sequence" ? str(body["stop_sequence"]) : undefined
  return {
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: texts.length === 0 ? null : texts.join(""),
          refusal: null,
          ...(calls.length === 0 ? {} : { tool_calls: calls }),
          ...(reasoning === "" ? {} : { reasoning_content: reasoning })
        },
        finish_reason: calls.length > 0 && finish === "stop" ? "tool_calls" : finish,
        logprobs: null,
        ...(stopSequence === undefined ? {} : { stopSequence })
      }
    ],
    usage: usageFromAnthropic(body["usage"])
  }
}
