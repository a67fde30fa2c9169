import type { DialectFields } from "../DialectFields.ts"
import { nativeOnlyFields } from "./MessagesWire.ts"

/**
 * The Messages API's request fields and the neutral fields they become; the fields the neutral
 * request has no place for reach Anthropic (native) and no other provider.
 * @see https://platform.claude.com/docs/en/api/messages/create
 */
export const messagesFields: DialectFields = {
  dialect: "messages",
  nativeKind: "anthropic",
  fields: [
    { field: "max_tokens", neutral: "max_completion_tokens" },
    { field: "temperature", neutral: "temperature" },
    { field: "top_p", neutral: "top_p" },
    { field: "top_k", neutral: "top_k" },
    { field: "stop_sequences", neutral: "stop" },
    { field: "metadata.user_id", neutral: "user" },
    { field: "tools", neutral: "tools" },
    { field: "tool_choice", neutral: "tool_choice" },
    { field: "tool_choice.disable_parallel_tool_use", neutral: "parallel_tool_calls" },
    { field: "thinking.budget_tokens", neutral: "reasoning_effort" },
    { field: "output_config.effort", neutral: "reasoning_effort" },
    { field: "output_config.format", neutral: "response_format" },
    ...[...nativeOnlyFields].map((field) => ({ field, neutral: undefined }))
  ]
}
