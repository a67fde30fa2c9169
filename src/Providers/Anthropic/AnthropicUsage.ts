import type { FinishReason } from "../../Domain/ChatCompletion.ts"
import type { Usage } from "../../Domain/Usage.ts"
import { num, rec } from "./AnthropicWire.ts"

/** Token counts as Anthropic reports them; `undefined` where a report left a field out. */
export interface AnthropicTokens {
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
  readonly thinking?: number
}

/** Reads a `usage` object (response, `message_start` or `message_delta`); null fields are absent. */
export const tokensFromAnthropic = (value: unknown): AnthropicTokens => {
  const u = rec(value)
  const set = <K extends keyof AnthropicTokens>(key: K, n: number | undefined) => (n === undefined ? {} : { [key]: n })
  return {
    ...set("input", num(u["input_tokens"])),
    ...set("output", num(u["output_tokens"])),
    ...set("cacheRead", num(u["cache_read_input_tokens"])),
    ...set("cacheWrite", num(u["cache_creation_input_tokens"])),
    ...set("thinking", num(rec(u["output_tokens_details"])["thinking_tokens"]))
  }
}

/** A later, cumulative report wins field by field; fields it leaves out keep the earlier value. */
export const mergeTokens = (earlier: AnthropicTokens, later: AnthropicTokens): AnthropicTokens => ({ ...earlier, ...later })

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; the gateway's prompt
 * tokens are every billed input token, so they are the sum. Cache reads are always reported
 * (0 when none, as OpenAI does); cache writes only when there were some.
 * @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching#tracking-cache-performance
 */
export const usageFromTokens = (t: AnthropicTokens): Usage => {
  const cacheRead = t.cacheRead ?? 0
  const cacheWrite = t.cacheWrite ?? 0
  return {
    promptTokens: (t.input ?? 0) + cacheRead + cacheWrite,
    completionTokens: t.output ?? 0,
    cachedTokens: cacheRead,
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    ...(t.thinking === undefined ? {} : { reasoningTokens: t.thinking })
  }
}

export const usageFromAnthropic = (value: unknown): Usage => usageFromTokens(tokensFromAnthropic(value))

/**
 * `stop_reason` -> `finish_reason`. A paused server-tool turn and anything unknown end the
 * turn normally; running out of context is a length stop like `max_tokens`.
 * @see https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons
 */
export const finishFromAnthropic = (value: unknown): FinishReason => {
  switch (value) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
    case "tool_use":
      return "tool_calls"
    case "refusal":
      return "content_filter"
    default:
      return "stop"
  }
}
