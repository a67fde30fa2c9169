import type { DialectFields } from "../DialectFields.ts"

/**
 * Responses fields the neutral request has no place for: OpenAI's own Responses API (native on
 * an `openai` provider) takes them, every other provider loses them, and the decoder reports
 * each one it meets as dropped (ResponsesDecoder.ts `translationOf`).
 */
export const responsesOnlyFields = [
  "text.verbosity",
  "reasoning.summary",
  "truncation",
  "service_tier",
  "prompt_cache_key",
  "top_logprobs",
  "max_tool_calls",
  "include",
  "stream_options.include_obfuscation",
  "input[].encrypted_content"
] as const
export type ResponsesOnlyField = (typeof responsesOnlyFields)[number]

/**
 * The Responses API's request fields and the neutral fields they become. `metadata`, `store`
 * and `previous_response_id` are the gateway's own (kept with the stored response), so they are
 * not listed.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const responsesFields: DialectFields = {
  dialect: "responses",
  nativeKind: "openai",
  fields: [
    { field: "max_output_tokens", neutral: "max_completion_tokens" },
    { field: "temperature", neutral: "temperature" },
    { field: "top_p", neutral: "top_p" },
    { field: "text.format", neutral: "response_format" },
    { field: "tools", neutral: "tools" },
    { field: "tool_choice", neutral: "tool_choice" },
    { field: "parallel_tool_calls", neutral: "parallel_tool_calls" },
    { field: "reasoning.effort", neutral: "reasoning_effort" },
    { field: "user", neutral: "user" },
    { field: "safety_identifier", neutral: "user" },
    ...responsesOnlyFields.map((field) => ({ field, neutral: undefined }))
  ]
}
