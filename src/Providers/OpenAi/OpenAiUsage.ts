import type { FinishReason } from "../../Domain/ChatCompletion.ts"
import type { Usage } from "../../Domain/Usage.ts"
import { num, rec } from "./OpenAiWire.ts"

/** OpenAI usage, including the details compatible servers add under other names. */
export const usageFromOpenAi = (value: unknown): Usage => {
  const u = rec(value)
  const prompt = rec(u["prompt_tokens_details"])
  const completion = rec(u["completion_tokens_details"])
  const cached = num(prompt["cached_tokens"]) ?? num(u["prompt_cache_hit_tokens"])
  const cacheWrite = num(prompt["cache_write_tokens"])
  const reasoning = num(completion["reasoning_tokens"])
  const audio = num(prompt["audio_tokens"])
  return {
    promptTokens: num(u["prompt_tokens"]) ?? 0,
    completionTokens: num(u["completion_tokens"]) ?? 0,
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
    ...(audio === undefined || audio === 0 ? {} : { audioPromptTokens: audio })
  }
}

/** The deprecated `function_call` is a tool call; anything unknown ends the turn normally. */
export const finishFromOpenAi = (value: unknown): FinishReason => {
  switch (value) {
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool_calls"
    case "content_filter":
      return "content_filter"
    default:
      return "stop"
  }
}
