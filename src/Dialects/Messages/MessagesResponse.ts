import type { ChatCompletion, FinishReason } from "../../Domain/ChatCompletion.ts"
import { normaliseUsage, type Usage } from "../../Domain/Usage.ts"

/**
 * The neutral completion -> Anthropic's Message object.
 * @see https://platform.claude.com/docs/en/api/messages/create (response)
 */

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal"

/** `finish_reason` -> `stop_reason`; a matched stop sequence is `stop_sequence` where the provider said which. */
export const stopReasonOf = (finish: FinishReason, stopSequence: string | undefined): StopReason => {
  switch (finish) {
    case "length":
      return "max_tokens"
    case "tool_calls":
      return "tool_use"
    case "content_filter":
      return "refusal"
    case "stop":
      return stopSequence === undefined ? "end_turn" : "stop_sequence"
  }
}

export interface MessagesUsageWire {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
}

/**
 * Anthropic's usage: `input_tokens` excludes cache reads and writes, which are reported apart
 * (the neutral prompt tokens include both), so an Anthropic upstream's figures come back as it
 * reported them, and another provider's cached tokens show as cache reads.
 * @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching#tracking-cache-performance
 */
export const usageToMessages = (reported: Usage): MessagesUsageWire => {
  const { usage } = normaliseUsage(reported)
  const read = usage.cachedTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  return {
    input_tokens: Math.max(0, usage.promptTokens - read - written),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read
  }
}

/** Arguments the model produced, as the object Anthropic's `input` is; unparseable ones are kept as a string field. */
export const toolInput = (args: string): Record<string, unknown> => {
  if (args.trim() === "") return {}
  try {
    const parsed: unknown = JSON.parse(args)
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed }
  } catch {
    return { _raw_arguments: args }
  }
}

export interface MessageEnvelope {
  readonly id: string
  readonly model: string
}

/**
 * Blocks in Anthropic's order: thinking, text, tool calls. Reasoning from another provider has
 * no signature: it is shown as thinking with an empty signature (Anthropic would not accept it
 * back, and the decoder does not send it to another provider either).
 */
export const messageFromCompletion = (completion: ChatCompletion, envelope: MessageEnvelope) => {
  const choice = completion.choices[0]
  const message = choice?.message
  const content: Array<Record<string, unknown>> = []
  if (message?.reasoning_content !== undefined && message.reasoning_content !== "") {
    content.push({ type: "thinking", thinking: message.reasoning_content, signature: "" })
  }
  const text = message?.content ?? message?.refusal ?? null
  if (text !== null && text !== "") content.push({ type: "text", text, citations: null })
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInput(call.function.arguments) })
  }
  const stopSequence = choice?.stopSequence
  return {
    id: envelope.id,
    type: "message",
    role: "assistant",
    model: envelope.model,
    content,
    stop_reason: choice === undefined ? "end_turn" : stopReasonOf(choice.finish_reason, stopSequence),
    stop_sequence: stopSequence ?? null,
    usage: usageToMessages(completion.usage)
  }
}
