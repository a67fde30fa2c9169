import type { FinishReason } from "../../Domain/ChatCompletion.ts"
import type { Usage } from "../../Domain/Usage.ts"
import type { ChunkWire } from "../../Streams/ChunkNormaliser.ts"
import { type MessageEnvelope, stopReasonOf, usageToMessages } from "./MessagesResponse.ts"

/**
 * The normalised chunk sequence (spec 6.3 order: role, deltas, tool calls with id and name
 * first, finish, usage) -> Anthropic's event grammar: `message_start`, then for each content
 * block `content_block_start`, its deltas (`text_delta`, `thinking_delta`, `input_json_delta`)
 * and `content_block_stop`, then `message_delta` (stop reason, usage) and `message_stop`.
 * Each event is written with its `event:` line, as Anthropic does.
 * @see https://platform.claude.com/docs/en/build-with-claude/streaming
 */

const frame = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** Anthropic's keep-alive event: SDKs skip it anywhere in the stream. */
export const pingFrame = frame("ping", { type: "ping" })

/** A failure after the stream started: Anthropic's `error` event, and the stream ends. */
export const errorEventFrame = (type: string, message: string): string => frame("error", { type: "error", error: { type, message } })

/**
 * An upstream event of a native call, as it came; only `message_start` changes: its `model` is
 * the catalogue id that serves, as on every other answer of the gateway.
 */
const nativeFrame = (event: string, data: string, model: string): string => {
  if (event !== "message_start") return `event: ${event}\ndata: ${data}\n\n`
  const parsed = JSON.parse(data) as { message?: Record<string, unknown> }
  return frame(event, { ...parsed, message: { ...parsed.message, model } })
}

type BlockKind = "text" | "thinking" | "tool"

interface ToolCallDelta {
  readonly index: number
  readonly id?: string
  readonly function?: { readonly name?: string; readonly arguments?: string }
}

export class MessagesStreamEncoder {
  private started = false
  private nextIndex = 0
  private open: { readonly kind: BlockKind; readonly index: number; readonly tool?: number } | undefined
  /** Tool call index -> its content block index (argument pieces name the call, not the block). */
  private readonly toolBlocks = new Map<number, number>()
  /** Serving natively: the upstream's own events pass through and the chat chunks are not re-encoded. */
  private native = false
  private finish: FinishReason | undefined
  private usage: Usage | undefined
  private readonly envelope: MessageEnvelope

  constructor(envelope: MessageEnvelope) {
    this.envelope = envelope
  }

  private start(model: string): string {
    this.started = true
    return frame("message_start", {
      type: "message_start",
      message: {
        id: this.envelope.id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // Known only when the upstream reports it (at the end, for most providers): message_delta carries it.
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: null }
      }
    })
  }

  private close(): string {
    if (this.open === undefined) return ""
    const index = this.open.index
    this.open = undefined
    return frame("content_block_stop", { type: "content_block_stop", index })
  }

  private openBlock(kind: BlockKind, block: object, tool?: number): string {
    const out = this.close()
    const index = this.nextIndex++
    this.open = { kind, index, ...(tool === undefined ? {} : { tool }) }
    if (tool !== undefined) this.toolBlocks.set(tool, index)
    return out + frame("content_block_start", { type: "content_block_start", index, content_block: block })
  }

  private textLike(kind: "text" | "thinking", piece: string): string {
    let out = ""
    if (this.open?.kind !== kind) {
      out += this.openBlock(kind, kind === "text" ? { type: "text", text: "", citations: null } : { type: "thinking", thinking: "", signature: "" })
    }
    const delta = kind === "text" ? { type: "text_delta", text: piece } : { type: "thinking_delta", thinking: piece }
    return out + frame("content_block_delta", { type: "content_block_delta", index: this.open!.index, delta })
  }

  private toolCall(call: ToolCallDelta): string {
    let out = ""
    if (call.id !== undefined) {
      out += this.openBlock("tool", { type: "tool_use", id: call.id, name: call.function?.name ?? "", input: {} }, call.index)
    }
    const piece = call.function?.arguments ?? ""
    const index = this.toolBlocks.get(call.index)
    if (piece === "" || index === undefined) return out
    // A piece for an earlier call (providers that interleave) goes to that call's block by index.
    return out + frame("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } })
  }

  /** One batch of normalised chunks -> the frames it produces ("" when nothing is due yet). */
  push(chunks: ReadonlyArray<ChunkWire>): string {
    let out = ""
    for (const chunk of chunks) {
      if (chunk.native !== undefined) {
        this.native = true
        out += nativeFrame(chunk.native.event, chunk.native.data, chunk.model)
        continue
      }
      if (this.native) continue
      if (chunk.usage !== undefined) {
        this.usage = {
          promptTokens: chunk.usage.prompt_tokens,
          completionTokens: chunk.usage.completion_tokens,
          cachedTokens: chunk.usage.prompt_tokens_details.cached_tokens,
          cacheWriteTokens: chunk.usage.prompt_tokens_details.cache_write_tokens
        }
      }
      for (const choice of chunk.choices) {
        // The chunk names the model that serves (a fallback's, when routing fell back).
        if (!this.started) out += this.start(chunk.model)
        const delta = choice.delta as {
          readonly content?: string
          readonly reasoning_content?: string
          readonly refusal?: string
          readonly tool_calls?: ReadonlyArray<ToolCallDelta>
        }
        if (delta.reasoning_content !== undefined && delta.reasoning_content !== "") out += this.textLike("thinking", delta.reasoning_content)
        if (delta.content !== undefined && delta.content !== "") out += this.textLike("text", delta.content)
        if (delta.refusal !== undefined && delta.refusal !== "") out += this.textLike("text", delta.refusal)
        for (const call of delta.tool_calls ?? []) out += this.toolCall(call)
        if (choice.finish_reason !== null) this.finish = choice.finish_reason
      }
    }
    return out
  }

  /** The upstream ended normally: the open block closes, then the stop reason and usage, then `message_stop`. */
  end(): string {
    // A native stream ended with the upstream's own `message_stop`.
    if (this.native) return ""
    let out = this.started ? "" : this.start(this.envelope.model)
    out += this.close()
    out += frame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReasonOf(this.finish ?? "stop", undefined), stop_sequence: null },
      usage: usageToMessages(this.usage ?? { promptTokens: 0, completionTokens: 0 })
    })
    return out + frame("message_stop", { type: "message_stop" })
  }
}
