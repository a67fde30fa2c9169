import type { ChatCompletion, FinishReason } from "../../Domain/ChatCompletion.ts"
import type { NativeRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ToolCall } from "../../Domain/ChatTool.ts"
import type { Usage } from "../../Domain/Usage.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import { arr, isRecord, num, rec, str } from "./OpenAiWire.ts"

/**
 * OpenAI's own Responses API (`POST /v1/responses`), for Responses requests served by an
 * `openai` provider: the client's body goes as it is, so reasoning items and their
 * `encrypted_content` survive; the answer is read back into the neutral completion (for
 * metering, spans and fallback) and kept whole beside it (`native`).
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */

/**
 * The upstream body: the client's, for the upstream model. The gateway keeps the conversation
 * itself (the input already holds a previous response's items), so OpenAI stores nothing and,
 * for reasoning models, returns reasoning as `encrypted_content` so the next turn can send it back.
 */
export const responsesApiBody = (native: NativeRequest, target: ChatTarget, stream: boolean): Record<string, unknown> => {
  const { previous_response_id: _previous, stream: _stream, stream_options: streamOptions, ...body } = native.body
  const include = new Set(arr(body["include"]).filter((value): value is string => typeof value === "string"))
  if (target.model.capabilities.reasoning) include.add("reasoning.encrypted_content")
  return {
    ...body,
    model: target.upstreamModel,
    store: false,
    ...(include.size === 0 ? {} : { include: [...include] }),
    ...(stream ? { stream: true, ...(streamOptions === undefined || streamOptions === null ? {} : { stream_options: streamOptions }) } : {})
  }
}

/** Responses usage in the neutral shape: input counts cached tokens, output counts reasoning. */
export const usageFromResponsesApi = (value: unknown): Usage => {
  const u = rec(value)
  const cached = num(rec(u["input_tokens_details"])["cached_tokens"])
  const reasoning = num(rec(u["output_tokens_details"])["reasoning_tokens"])
  return {
    promptTokens: num(u["input_tokens"]) ?? 0,
    completionTokens: num(u["output_tokens"]) ?? 0,
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning })
  }
}

const finishOf = (response: Record<string, unknown>, calls: number): FinishReason => {
  if (response["status"] === "incomplete") {
    return str(rec(response["incomplete_details"])["reason"]) === "content_filter" ? "content_filter" : "length"
  }
  return calls > 0 ? "tool_calls" : "stop"
}

/** A Responses `response` object as the neutral completion; `undefined` when the body is not one. */
export const completionFromResponsesApi = (body: unknown): ChatCompletion | undefined => {
  if (!isRecord(body) || body["object"] !== "response" || !Array.isArray(body["output"])) return undefined
  let text = ""
  let refusal = ""
  let reasoning = ""
  const calls: Array<ToolCall> = []
  for (const item of arr(body["output"]).filter(isRecord)) {
    switch (item["type"]) {
      case "message":
        for (const part of arr(item["content"]).filter(isRecord)) {
          if (part["type"] === "output_text") text += str(part["text"]) ?? ""
          else if (part["type"] === "refusal") refusal += str(part["refusal"]) ?? ""
        }
        break
      case "reasoning":
        for (const part of arr(item["summary"]).filter(isRecord)) reasoning += str(part["text"]) ?? ""
        break
      case "function_call":
        calls.push({ id: str(item["call_id"]) ?? "", type: "function", function: { name: str(item["name"]) ?? "", arguments: str(item["arguments"]) ?? "" } })
        break
    }
  }
  return {
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: text === "" ? null : text,
        refusal: refusal === "" ? null : refusal,
        ...(calls.length === 0 ? {} : { tool_calls: calls }),
        ...(reasoning === "" ? {} : { reasoning_content: reasoning })
      },
      finish_reason: finishOf(body, calls.length),
      logprobs: null
    }],
    usage: usageFromResponsesApi(body["usage"]),
    native: body
  }
}

/** Per-stream memory: the function-call items seen, by item id, in order. */
export interface ResponsesApiStreamState {
  readonly calls: Map<string, number>
}

export const initialResponsesApiStreamState = (): ResponsesApiStreamState => ({ calls: new Map() })

export type ResponsesApiStreamStep =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<ChatStreamEvent> }
  /** `response.completed` or `response.incomplete`: the stream ended on purpose. */
  | { readonly _tag: "Done"; readonly events: ReadonlyArray<ChatStreamEvent> }
  | { readonly _tag: "Error"; readonly message: string; readonly retryable: boolean }

/**
 * One SSE `data` payload of a Responses stream -> the event itself (`Native`), then what it
 * means neutrally: text, refusal and reasoning-summary deltas, function calls (started when
 * their item is added, arguments as they come), and usage with the finish at the end.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export const responsesApiStreamStep = (state: ResponsesApiStreamState, name: string, data: string): ResponsesApiStreamStep => {
  let event: unknown
  try {
    event = JSON.parse(data)
  } catch {
    return { _tag: "Error", message: "an event was not valid JSON", retryable: true }
  }
  if (!isRecord(event)) return { _tag: "Events", events: [] }
  const events: Array<ChatStreamEvent> = [{ _tag: "Native", event: name, data, json: event }]
  const delta = str(event["delta"]) ?? ""
  switch (event["type"]) {
    case "response.output_text.delta":
      if (delta !== "") events.push({ _tag: "TextDelta", choice: 0, text: delta })
      break
    case "response.refusal.delta":
      if (delta !== "") events.push({ _tag: "RefusalDelta", choice: 0, text: delta })
      break
    case "response.reasoning_summary_text.delta":
      if (delta !== "") events.push({ _tag: "ReasoningDelta", choice: 0, text: delta })
      break
    case "response.output_item.added": {
      const item = rec(event["item"])
      if (item["type"] !== "function_call") break
      const toolIndex = state.calls.size
      state.calls.set(str(item["id"]) ?? `call-${toolIndex}`, toolIndex)
      events.push({ _tag: "ToolCallStart", choice: 0, toolIndex, id: str(item["call_id"]) ?? "", name: str(item["name"]) ?? "" })
      break
    }
    case "response.function_call_arguments.delta": {
      const toolIndex = state.calls.get(str(event["item_id"]) ?? "")
      if (toolIndex !== undefined && delta !== "") events.push({ _tag: "ToolCallDelta", choice: 0, toolIndex, arguments: delta })
      break
    }
    case "response.completed":
    case "response.incomplete": {
      const response = rec(event["response"])
      events.push({ _tag: "Usage", usage: usageFromResponsesApi(response["usage"]) }, { _tag: "Finish", choice: 0, reason: finishOf(response, state.calls.size) })
      return { _tag: "Done", events }
    }
    case "response.failed": {
      const error = rec(rec(event["response"])["error"])
      return { _tag: "Error", message: str(error["message"]) ?? "the response failed", retryable: str(error["code"]) === "server_error" }
    }
    case "error": {
      const error = isRecord(event["error"]) ? event["error"] : event
      return { _tag: "Error", message: str(error["message"]) ?? "stream error", retryable: str(error["code"]) === "server_error" }
    }
  }
  return { _tag: "Events", events }
}
