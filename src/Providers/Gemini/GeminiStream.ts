import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import { logprobsFromGemini } from "./GeminiLogprobs.ts"
import { signatureOf, toolCallFromGemini } from "./GeminiResponse.ts"
import { finishFromGemini, promptBlockMessage, usageFromGemini } from "./GeminiUsage.ts"
import { arr, isRecord, num, rec, str } from "./GeminiWire.ts"

/** Per-stream memory: calls started per candidate, and which candidates have finished. */
export interface GeminiStreamState {
  readonly candidates: number
  readonly toolCount: Map<number, number>
  readonly finished: Set<number>
}

export const initialGeminiStreamState = (candidates: number): GeminiStreamState => ({
  candidates,
  toolCount: new Map(),
  finished: new Set()
})

/** True once every requested candidate has its finish reason: the stream ended on purpose. */
export const geminiStreamComplete = (state: GeminiStreamState): boolean => state.finished.size >= state.candidates

export type GeminiStreamStep =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<ChatStreamEvent> }
  | { readonly _tag: "Error"; readonly message: string; readonly retryable: boolean }

/** Google RPC codes that a later attempt may not hit. */
const transient: ReadonlySet<string> = new Set(["UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED"])

const candidateEvents = (state: GeminiStreamState, raw: unknown, position: number, events: Array<ChatStreamEvent>): void => {
  const candidate = rec(raw)
  const choice = num(candidate["index"]) ?? position
  if (state.finished.has(choice)) return
  let logprobs = logprobsFromGemini(candidate)
  for (const part of arr(rec(candidate["content"])["parts"]).filter(isRecord)) {
    const text = str(part["text"])
    if (text !== undefined && text !== "") {
      if (part["thought"] === true) {
        events.push({ _tag: "ReasoningDelta", choice, text })
      } else {
        events.push({ _tag: "TextDelta", choice, text, ...(logprobs === undefined ? {} : { logprobs }) })
        logprobs = undefined
      }
    }
    const call = isRecord(part["functionCall"]) ? toolCallFromGemini(part["functionCall"]) : undefined
    // The signature first, so the reasoning it belongs to precedes the call.
    const signature = signatureOf(part, call?.id)
    if (signature !== undefined) events.push({ _tag: "ReasoningSigned", choice, detail: signature })
    if (call !== undefined) {
      // A call arrives whole: its start, then all of its arguments as one piece.
      const toolIndex = state.toolCount.get(choice) ?? 0
      state.toolCount.set(choice, toolIndex + 1)
      events.push({ _tag: "ToolCallStart", choice, toolIndex, id: call.id, name: call.function.name })
      events.push({ _tag: "ToolCallDelta", choice, toolIndex, arguments: call.function.arguments })
    }
  }
  if (logprobs !== undefined) events.push({ _tag: "TextDelta", choice, text: "", logprobs })
  if (str(candidate["finishReason"]) !== undefined) {
    state.finished.add(choice)
    events.push({ _tag: "Finish", choice, reason: finishFromGemini(candidate["finishReason"]) })
  }
}

/**
 * One SSE `data` payload of `streamGenerateContent?alt=sse` -> provider-neutral events. Each
 * payload is a whole `GenerateContentResponse` holding only the new parts; `usageMetadata` holds
 * running totals (emitted every time; the last one wins downstream). A blocked prompt ends every
 * candidate with its reason as refusal; an `error` object is a failure of the stream.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export const geminiStreamStep = (state: GeminiStreamState, data: string): GeminiStreamStep => {
  if (data.trim() === "") return { _tag: "Events", events: [] }
  let chunk: unknown
  try {
    chunk = JSON.parse(data)
  } catch {
    return { _tag: "Error", message: "an event was not valid JSON", retryable: true }
  }
  if (!isRecord(chunk)) return { _tag: "Events", events: [] }
  if (isRecord(chunk["error"])) {
    const error = chunk["error"]
    const code = num(error["code"]) ?? 0
    const status = str(error["status"]) ?? ""
    return { _tag: "Error", message: str(error["message"]) ?? status, retryable: code >= 500 || code === 429 || transient.has(status) }
  }
  const events: Array<ChatStreamEvent> = []
  for (const [position, candidate] of arr(chunk["candidates"]).entries()) candidateEvents(state, candidate, position, events)
  const blocked = promptBlockMessage(chunk)
  if (blocked !== undefined) {
    for (let choice = 0; choice < state.candidates; choice++) {
      if (state.finished.has(choice)) continue
      state.finished.add(choice)
      events.push({ _tag: "RefusalDelta", choice, text: blocked }, { _tag: "Finish", choice, reason: "content_filter" })
    }
  }
  if (isRecord(chunk["usageMetadata"])) events.push({ _tag: "Usage", usage: usageFromGemini(chunk["usageMetadata"]) })
  return { _tag: "Events", events }
}
