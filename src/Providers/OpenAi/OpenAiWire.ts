/**
 * The OpenAI chat-completions wire format as this gateway reads it: lenient (every field may be
 * missing or null, unknown fields are ignored) because OpenAI-compatible servers differ in what
 * they fill in. Readers are plain functions on parsed JSON; the hot path avoids schema passes.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

export { arr, isRecord, type JsonRecord, num, rec, str } from "../JsonReaders.ts"

export interface OpenAiUsageWire {
  readonly prompt_tokens?: number
  readonly completion_tokens?: number
  readonly prompt_tokens_details?: { readonly cached_tokens?: number; readonly audio_tokens?: number } | null
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number } | null
  /** DeepSeek reports cache reads this way. */
  readonly prompt_cache_hit_tokens?: number
}

export interface OpenAiErrorWire {
  readonly message?: string
  readonly type?: string
  readonly param?: string | null
  readonly code?: string | number | null
}
