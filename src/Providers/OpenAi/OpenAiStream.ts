import type { ChoiceLogprobs } from "../../Domain/ChatCompletion.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import * as Ids from "../../Domain/Ids.ts"
import { finishFromOpenAi, usageFromOpenAi } from "./OpenAiUsage.ts"
import { arr, isRecord, num, rec, str } from "./OpenAiWire.ts"

/** Per-stream memory: which tool calls have started, per choice. */
export interface OpenAiStreamState {
  readonly tools: Map<number, Set<number>>
}

export const initialOpenAiStreamState = (): OpenAiStreamState => ({ tools: new Map() })

export type OpenAiStreamStep =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<ChatStreamEvent> }
  | { readonly _tag: "Done" }
  | { readonly _tag: "Error"; readonly message: string; readonly code: string | undefined }

/**
 * One SSE `data` payload -> provider-neutral events. A tool call starts when its index is first
 * seen (id and name come then); later pieces carry arguments only. Servers that send the whole
 * call in one piece are handled the same way.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export const openAiStreamStep = (state: OpenAiStreamState, data: string): OpenAiStreamStep => {
  if (data === "[DONE]") return { _tag: "Done" }
  let chunk: unknown
  try {
    chunk = JSON.parse(data)
  } catch {
    return { _tag: "Error", message: "an event was not valid JSON", code: "malformed" }
  }
  if (!isRecord(chunk)) return { _tag: "Events", events: [] }
  if (isRecord(chunk["error"])) {
    const error = chunk["error"]
    return { _tag: "Error", message: str(error["message"]) ?? "unknown error", code: str(error["type"]) ?? str(error["code"]) }
  }
  const events: Array<ChatStreamEvent> = []
  for (const raw of arr(chunk["choices"])) {
    if (!isRecord(raw)) continue
    const choice = num(raw["index"]) ?? 0
    const delta = rec(raw["delta"])
    const reasoning = str(delta["reasoning_content"]) ?? str(delta["reasoning"])
    if (reasoning !== undefined && reasoning !== "") events.push({ _tag: "ReasoningDelta", choice, text: reasoning })
    const content = str(delta["content"])
    const logprobs = isRecord(raw["logprobs"]) ? (raw["logprobs"] as unknown as ChoiceLogprobs) : undefined
    if ((content !== undefined && content !== "") || logprobs !== undefined) {
      // Two literals rather than a spread: the common delta stays one small object of one shape.
      events.push(
        logprobs === undefined
          ? { _tag: "TextDelta", choice, text: content ?? "" }
          : { _tag: "TextDelta", choice, text: content ?? "", logprobs }
      )
    }
    const refusal = str(delta["refusal"])
    if (refusal !== undefined && refusal !== "") events.push({ _tag: "RefusalDelta", choice, text: refusal })
    const calls = arr(delta["tool_calls"])
    for (let position = 0; position < calls.length; position++) {
      const rawCall = calls[position]
      if (!isRecord(rawCall)) continue
      const toolIndex = num(rawCall["index"]) ?? position
      const fn = rec(rawCall["function"])
      let started = state.tools.get(choice)
      if (started === undefined) {
        started = new Set()
        state.tools.set(choice, started)
      }
      if (!started.has(toolIndex)) {
        started.add(toolIndex)
        events.push({
          _tag: "ToolCallStart",
          choice,
          toolIndex,
          id: str(rawCall["id"]) ?? Ids.toolCallId(),
          name: str(fn["name"]) ?? ""
        })
      }
      const args = str(fn["arguments"])
      if (args !== undefined && args !== "") events.push({ _tag: "ToolCallDelta", choice, toolIndex, arguments: args })
    }
    if (raw["finish_reason"] !== undefined && raw["finish_reason"] !== null) {
      events.push({ _tag: "Finish", choice, reason: finishFromOpenAi(raw["finish_reason"]) })
    }
  }
  if (isRecord(chunk["usage"])) events.push({ _tag: "Usage", usage: usageFromOpenAi(chunk["usage"]) })
  return { _tag: "Events", events }
}
