import type { ChatCompletion, ChoiceLogprobs, CompletionChoice } from "../../Domain/ChatCompletion.ts"
import type { ToolCall } from "../../Domain/ChatTool.ts"
import * as Ids from "../../Domain/Ids.ts"
import { finishFromOpenAi, usageFromOpenAi } from "./OpenAiUsage.ts"
import { arr, isRecord, num, rec, str } from "./OpenAiWire.ts"

const toolCalls = (value: unknown): ReadonlyArray<ToolCall> | undefined => {
  const calls = arr(value).filter(isRecord).map((call): ToolCall => {
    const fn = rec(call["function"])
    return {
      id: str(call["id"]) ?? Ids.toolCallId(),
      type: "function",
      function: { name: str(fn["name"]) ?? "", arguments: str(fn["arguments"]) ?? "" }
    }
  })
  return calls.length > 0 ? calls : undefined
}

/**
 * An OpenAI-style completion body as the gateway's completion; `undefined` when the body is not
 * one (the adapter reports that as a bad upstream response).
 */
export const completionFromOpenAi = (body: unknown): ChatCompletion | undefined => {
  if (!isRecord(body) || !Array.isArray(body["choices"])) return undefined
  const choices = arr(body["choices"]).filter(isRecord).map((choice, position): CompletionChoice => {
    const message = rec(choice["message"])
    const calls = toolCalls(message["tool_calls"])
    const reasoning = str(message["reasoning_content"]) ?? str(message["reasoning"])
    const finish = finishFromOpenAi(choice["finish_reason"])
    return {
      index: num(choice["index"]) ?? position,
      message: {
        role: "assistant",
        content: str(message["content"]) ?? null,
        refusal: str(message["refusal"]) ?? null,
        ...(calls === undefined ? {} : { tool_calls: calls }),
        ...(reasoning === undefined || reasoning === "" ? {} : { reasoning_content: reasoning })
      },
      finish_reason: calls !== undefined && finish === "stop" ? "tool_calls" : finish,
      logprobs: isRecord(choice["logprobs"]) ? (choice["logprobs"] as unknown as ChoiceLogprobs) : null
    }
  })
  const fingerprint = str(body["system_fingerprint"])
  return {
    choices,
    usage: usageFromOpenAi(body["usage"]),
    ...(fingerprint === undefined ? {} : { systemFingerprint: fingerprint })
  }
}
