/**
 * The OpenAI chat-completions wire format as this gateway reads it: lenient (every field may be
 * missing or null, unknown fields are ignored) because OpenAI-compatible servers differ in what
 * they fill in. Readers are plain functions on parsed JSON; the hot path avoids schema passes.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json | undefined }
export type JsonRecord = { readonly [key: string]: Json | undefined }

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
export const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined)
export const arr = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
export const rec = (value: unknown): JsonRecord => (isRecord(value) ? value : {})

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
