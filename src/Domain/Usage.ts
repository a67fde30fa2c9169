import { normaliseUsage } from "./UsageNormaliser.ts"

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
  readonly prompt_tokens_details: {
    readonly cached_tokens: number
    readonly cache_write_tokens: number
    readonly audio_tokens?: number
  }
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number }
}

/**
 * The wire usage of every provider in one shape: whole, bounded counts (see UsageNormaliser.ts)
 * and `prompt_tokens_details` always present with `cached_tokens` and `cache_write_tokens` (0 where
 * the provider reports none), so clients read the same fields whichever provider served.
 */
export const usageToWire = (reported: Usage): UsageWire => {
  const { usage } = normaliseUsage(reported)
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens ?? 0,
      cache_write_tokens: usage.cacheWriteTokens ?? 0,
      ...(usage.audioPromptTokens === undefined ? {} : { audio_tokens: usage.audioPromptTokens })
    },
    ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {})
  }
}
