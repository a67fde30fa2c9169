import type { ChatCompletion, CompletionChoice } from "../../Domain/ChatCompletion.ts"
import type { ToolCall } from "../../Domain/ChatTool.ts"
import * as Ids from "../../Domain/Ids.ts"
import type { ReasoningDetail } from "../../Domain/ReasoningDetail.ts"
import { logprobsFromGemini } from "./GeminiLogprobs.ts"
import { finishFromGemini, promptBlockMessage, usageFromGemini } from "./GeminiUsage.ts"
import { arr, isRecord, num, rec, str } from "./GeminiWire.ts"

/**
 * A function call as the chat wire shows it. Gemini's call has no id unless the API version
 * provides one, so the gateway makes one up; arguments go back to a JSON string.
 * @see https://ai.google.dev/api/caching#FunctionCall
 */
export const toolCallFromGemini = (functionCall: unknown): ToolCall => {
  const call = rec(functionCall)
  return {
    id: str(call["id"]) ?? Ids.toolCallId(),
    type: "function",
    function: { name: str(call["name"]) ?? "", arguments: JSON.stringify(isRecord(call["args"]) ? call["args"] : {}) }
  }
}

/** A part's thought signature, tied to its function call when it has one. */
export const signatureOf = (part: Record<string, unknown>, callId: string | undefined): ReasoningDetail | undefined => {
  const signature = str(part["thoughtSignature"])
  if (signature === undefined || signature === "") return undefined
  return { provider: "gemini", type: "signature", signature, ...(callId === undefined ? {} : { callId }) }
}

const choiceFromCandidate = (raw: unknown, position: number): CompletionChoice => {
  const candidate = rec(raw)
  let text = ""
  let reasoning = ""
  const calls: Array<ToolCall> = []
  const details: Array<ReasoningDetail> = []
  for (const part of arr(rec(candidate["content"])["parts"]).filter(isRecord)) {
    const partText = str(part["text"])
    if (partText !== undefined) {
      if (part["thought"] === true) reasoning += partText
      else text += partText
    }
    const call = isRecord(part["functionCall"]) ? toolCallFromGemini(part["functionCall"]) : undefined
    if (call !== undefined) calls.push(call)
    const signature = signatureOf(part, call?.id)
    if (signature !== undefined) details.push(signature)
  }
  const finish = finishFromGemini(candidate["finishReason"])
  return {
    index: num(candidate["index"]) ?? position,
    message: {
      role: "assistant",
      content: text === "" ? null : text,
      refusal: null,
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
      ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
      ...(details.length === 0 ? {} : { reasoning_details: details })
    },
    finish_reason: calls.length > 0 && finish === "stop" ? "tool_calls" : finish,
    logprobs: logprobsFromGemini(candidate) ?? null
  }
}

/**
 * A `GenerateContentResponse` -> the gateway's completion; `undefined` when the body is not one
 * (the adapter reports that as a bad upstream response). A blocked prompt has no candidates:
 * each of the `n` requested choices then ends with `content_filter` and the reason as refusal.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export const completionFromGemini = (body: unknown, n: number): ChatCompletion | undefined => {
  if (!isRecord(body)) return undefined
  const candidates = arr(body["candidates"])
  const usage = usageFromGemini(body["usageMetadata"])
  if (candidates.length === 0) {
    const blocked = promptBlockMessage(body)
    if (blocked === undefined) return undefined
    const choices = Array.from({ length: n }, (_, index): CompletionChoice => ({
      index,
      message: { role: "assistant", content: null, refusal: blocked },
      finish_reason: "content_filter",
      logprobs: null
    }))
    return { choices, usage }
  }
  const choices = candidates.map(choiceFromCandidate).sort((a, b) => a.index - b.index)
  return { choices, usage }
}
