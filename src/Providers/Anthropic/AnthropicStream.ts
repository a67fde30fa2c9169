import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import * as Ids from "../../Domain/Ids.ts"
import { type AnthropicTokens, finishFromAnthropic, mergeTokens, tokensFromAnthropic, usageFromTokens } from "./AnthropicUsage.ts"
import { isRecord, rec, str } from "./AnthropicWire.ts"

interface BlockState {
  readonly kind: "text" | "thinking" | "tool" | "other"
  /** For tool blocks: the call's position among this message's tool calls. */
  readonly toolIndex: number
  /** Whether any non-empty argument piece went out for this tool block. */
  sawArguments: boolean
  open: boolean
  /** A thinking block's text and signature, given back whole when the block stops. */
  thinking?: string
  signature?: string
}

/** Per-stream memory: the content blocks seen so far, and the cumulative token counts. */
export interface AnthropicStreamState {
  started: boolean
  readonly blocks: Map<number, BlockState>
  nextTool: number
  tokens: AnthropicTokens
}

export const initialAnthropicStreamState = (): AnthropicStreamState => ({
  started: false,
  blocks: new Map(),
  nextTool: 0,
  tokens: {}
})

export type AnthropicStreamStep =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<ChatStreamEvent> }
  /** `message_stop`: the stream ends, after `events` (a native stream's last frames). */
  | { readonly _tag: "Done"; readonly events?: ReadonlyArray<ChatStreamEvent> }
  /** An `error` event. Overload and internal errors are worth another attempt; the rest are not. */
  | { readonly _tag: "Error"; readonly message: string; readonly type: string | undefined; readonly retryable: boolean }
  /** A payload that is not JSON: the stream cannot be trusted any further. */
  | { readonly _tag: "Malformed" }

const events = (...list: ReadonlyArray<ChatStreamEvent>): AnthropicStreamStep => ({ _tag: "Events", events: list })
const nothing = events()

/** @see https://platform.claude.com/docs/en/api/errors */
const retryableErrorTypes: ReadonlySet<string> = new Set(["overloaded_error", "api_error"])

const blockStart = (state: AnthropicStreamState, index: number, block: Record<string, unknown>): AnthropicStreamStep => {
  if (state.blocks.has(index)) return nothing
  switch (block["type"]) {
    case "text": {
      state.blocks.set(index, { kind: "text", toolIndex: -1, sawArguments: false, open: true })
      const text = str(block["text"]) ?? ""
      return text === "" ? nothing : events({ _tag: "TextDelta", choice: 0, text })
    }
    case "thinking": {
      const text = str(block["thinking"]) ?? ""
      state.blocks.set(index, { kind: "thinking", toolIndex: -1, sawArguments: false, open: true, thinking: text, signature: str(block["signature"]) ?? "" })
      return text === "" ? nothing : events({ _tag: "ReasoningDelta", choice: 0, text })
    }
    case "tool_use": {
      const toolIndex = state.nextTool++
      // The start carries `input: {}` and the arguments follow as pieces; a start that already
      // holds a complete input (as some compatible servers send) counts as the whole argument.
      const input = block["input"]
      const whole = isRecord(input) && Object.keys(input).length > 0 ? JSON.stringify(input) : undefined
      state.blocks.set(index, { kind: "tool", toolIndex, sawArguments: whole !== undefined, open: true })
      const start: ChatStreamEvent = {
        _tag: "ToolCallStart",
        choice: 0,
        toolIndex,
        id: str(block["id"]) ?? Ids.toolCallId(),
        name: str(block["name"]) ?? ""
      }
      return whole === undefined ? events(start) : events(start, { _tag: "ToolCallDelta", choice: 0, toolIndex, arguments: whole })
    }
    case "redacted_thinking": {
      state.blocks.set(index, { kind: "other", toolIndex: -1, sawArguments: false, open: true })
      const data = str(block["data"])
      return data === undefined ? nothing : events({ _tag: "ReasoningSigned", choice: 0, detail: { provider: "anthropic", type: "redacted", data } })
    }
    default:
      // Server-tool blocks have no counterpart in the chat-completions stream.
      state.blocks.set(index, { kind: "other", toolIndex: -1, sawArguments: false, open: true })
      return nothing
  }
}

const blockDelta = (state: AnthropicStreamState, index: number, delta: Record<string, unknown>): AnthropicStreamStep => {
  const block = state.blocks.get(index)
  if (block !== undefined && !block.open) return nothing
  switch (delta["type"]) {
    case "text_delta": {
      const text = str(delta["text"]) ?? ""
      return text === "" ? nothing : events({ _tag: "TextDelta", choice: 0, text })
    }
    case "thinking_delta": {
      const text = str(delta["thinking"]) ?? ""
      if (block?.kind === "thinking") block.thinking = (block.thinking ?? "") + text
      return text === "" ? nothing : events({ _tag: "ReasoningDelta", choice: 0, text })
    }
    case "input_json_delta": {
      const piece = str(delta["partial_json"]) ?? ""
      // A piece for a block that never started cannot be attributed to a call.
      if (block === undefined || block.kind !== "tool" || piece === "") return nothing
      block.sawArguments = true
      return events({ _tag: "ToolCallDelta", choice: 0, toolIndex: block.toolIndex, arguments: piece })
    }
    case "signature_delta":
      if (block?.kind === "thinking") block.signature = (block.signature ?? "") + (str(delta["signature"]) ?? "")
      return nothing
    default:
      // citations_delta carries nothing the client can use.
      return nothing
  }
}

/** A tool without input streams no argument pieces; the client still gets `{}` to parse. */
const blockStop = (state: AnthropicStreamState, index: number): AnthropicStreamStep => {
  const block = state.blocks.get(index)
  if (block === undefined || !block.open) return nothing
  block.open = false
  if (block.kind === "thinking" && block.signature !== undefined && block.signature !== "") {
    return events({ _tag: "ReasoningSigned", choice: 0, detail: { provider: "anthropic", type: "thinking", text: block.thinking ?? "", signature: block.signature } })
  }
  if (block.kind !== "tool" || block.sawArguments) return nothing
  block.sawArguments = true
  return events({ _tag: "ToolCallDelta", choice: 0, toolIndex: block.toolIndex, arguments: "{}" })
}

/**
 * One SSE event of a Messages API stream -> provider-neutral events. `message_start` opens the
 * message (a repeated one is ignored), content blocks stream by index, `message_delta` carries
 * the stop reason and cumulative usage, `message_stop` ends it, `ping` is a keep-alive and
 * `error` fails the stream. Unknown event types are skipped, as the API's versioning asks.
 * @see https://platform.claude.com/docs/en/build-with-claude/streaming
 */
export const anthropicStreamStep = (state: AnthropicStreamState, eventName: string, data: string): AnthropicStreamStep => {
  let payload: unknown
  try {
    payload = JSON.parse(data)
  } catch {
    return { _tag: "Malformed" }
  }
  if (!isRecord(payload)) return nothing
  const type = str(payload["type"]) ?? eventName
  const index = typeof payload["index"] === "number" ? payload["index"] : -1
  switch (type) {
    case "message_start": {
      if (state.started) return nothing
      state.started = true
      state.tokens = tokensFromAnthropic(rec(payload["message"])["usage"])
      return events({ _tag: "Usage", usage: usageFromTokens(state.tokens) })
    }
    case "content_block_start":
      return blockStart(state, index, rec(payload["content_block"]))
    case "content_block_delta":
      return blockDelta(state, index, rec(payload["delta"]))
    case "content_block_stop":
      return blockStop(state, index)
    case "message_delta": {
      state.tokens = mergeTokens(state.tokens, tokensFromAnthropic(payload["usage"]))
      const usage: ChatStreamEvent = { _tag: "Usage", usage: usageFromTokens(state.tokens) }
      const reason = rec(payload["delta"])["stop_reason"]
      return typeof reason === "string" ? events({ _tag: "Finish", choice: 0, reason: finishFromAnthropic(reason) }, usage) : events(usage)
    }
    case "message_stop":
      return { _tag: "Done" }
    case "error": {
      const error = rec(payload["error"])
      const errorType = str(error["type"])
      return {
        _tag: "Error",
        message: str(error["message"]) ?? "unknown error",
        type: errorType,
        retryable: errorType !== undefined && retryableErrorTypes.has(errorType)
      }
    }
    default:
      return nothing
  }
}
