/**
 * The Anthropic Messages API wire format as this gateway writes and reads it. Requests are built
 * as these shapes; responses and stream events are read leniently with the plain JSON readers
 * (every field may be missing), because the API adds fields and block types over time.
 * @see https://platform.claude.com/docs/en/api/messages/create
 */
export { arr, isRecord, type JsonRecord, num, rec, str } from "../OpenAi/OpenAiWire.ts"

/** The API version every request names; features newer than it are opted into per field. */
export const anthropicVersion = "2023-06-01"

/**
 * Ends a prefix the API caches: everything up to and including the marked block.
 * @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching
 */
export interface CacheControlWire {
  readonly type: "ephemeral"
}

export interface TextBlockWire {
  readonly type: "text"
  readonly text: string
  readonly cache_control?: CacheControlWire
}

/** @see https://platform.claude.com/docs/en/build-with-claude/vision */
export interface ImageBlockWire {
  readonly type: "image"
  readonly source:
    | { readonly type: "base64"; readonly media_type: string; readonly data: string }
    | { readonly type: "url"; readonly url: string }
  readonly cache_control?: CacheControlWire
}

/** @see https://platform.claude.com/docs/en/build-with-claude/pdf-support */
export interface DocumentBlockWire {
  readonly type: "document"
  readonly source:
    | { readonly type: "base64"; readonly media_type: "application/pdf"; readonly data: string }
    | { readonly type: "text"; readonly media_type: "text/plain"; readonly data: string }
  readonly title?: string
  readonly cache_control?: CacheControlWire
}

/** @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls */
export interface ToolUseBlockWire {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: unknown
  readonly cache_control?: CacheControlWire
}

export interface ToolResultBlockWire {
  readonly type: "tool_result"
  readonly tool_use_id: string
  /** Optional on the wire: an empty result is sent without it. */
  readonly content?: string
  readonly cache_control?: CacheControlWire
}

/** Thinking replayed in a later turn, exactly as issued. @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking */
export interface ThinkingBlockWire {
  readonly type: "thinking"
  readonly thinking: string
  readonly signature: string
  readonly cache_control?: CacheControlWire
}

export interface RedactedThinkingBlockWire {
  readonly type: "redacted_thinking"
  readonly data: string
  readonly cache_control?: CacheControlWire
}

export type UserBlockWire = TextBlockWire | ImageBlockWire | DocumentBlockWire | ToolResultBlockWire
export type AssistantBlockWire = TextBlockWire | ToolUseBlockWire | ThinkingBlockWire | RedactedThinkingBlockWire
export type BlockWire = UserBlockWire | AssistantBlockWire

export interface MessageWire {
  readonly role: "user" | "assistant"
  readonly content: ReadonlyArray<BlockWire>
}

/** @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools */
export interface ToolWire {
  readonly name: string
  readonly description?: string
  readonly input_schema: Readonly<Record<string, unknown>>
  readonly strict?: boolean
}

export type ToolChoiceWire =
  | { readonly type: "auto" | "any"; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: "tool"; readonly name: string; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: "none" }

/** Response usage; in a stream, `message_delta` repeats it cumulatively and may null the input side. */
export interface UsageWire {
  readonly input_tokens?: number | null
  readonly output_tokens?: number | null
  readonly cache_creation_input_tokens?: number | null
  readonly cache_read_input_tokens?: number | null
  readonly output_tokens_details?: { readonly thinking_tokens?: number } | null
}

/** @see https://platform.claude.com/docs/en/api/errors */
export interface ErrorWire {
  readonly type: "error"
  readonly error: { readonly type: string; readonly message: string }
}
