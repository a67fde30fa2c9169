/** Token usage normalised across providers (spec 6.5). */
export interface Usage {
  /** Every billed input token: uncached, cache reads and cache writes. */
  readonly promptTokens: number
  /** Generated tokens, including reasoning and tool-call arguments. */
  readonly completionTokens: number
  readonly cachedTokens?: number
  readonly cacheWriteTokens?: number
  readonly reasoningTokens?: number
  readonly audioPromptTokens?: number
}

export const emptyUsage: Usage = { promptTokens: 0, completionTokens: 0 }

/** The wire `usage` object of responses and usage chunks. */
export interface UsageWire {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly prompt_tokens_details?: {
    readonly cached_tokens?: number
    readonly cache_write_tokens?: number
    readonly audio_tokens?: number
  }
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number }
}

export const usageToWire = (usage: Usage): UsageWire => {
  const prompt: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number } = {}
  if (usage.cachedTokens !== undefined) prompt.cached_tokens = usage.cachedTokens
  if (usage.cacheWriteTokens !== undefined) prompt.cache_write_tokens = usage.cacheWriteTokens
  if (usage.audioPromptTokens !== undefined) prompt.audio_tokens = usage.audioPromptTokens
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(Object.keys(prompt).length > 0 ? { prompt_tokens_details: prompt } : {}),
    ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {})
  }
}
