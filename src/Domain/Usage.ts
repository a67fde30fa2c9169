import { FigureChanges, type RawFigures, usageBounds } from "./UsageBounds.ts"

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

const optionalCount = (changes: FigureChanges, field: string, value: number | undefined, max: number) =>
  value === undefined ? undefined : changes.count(field, value, max)

const isBounded = (n: number | undefined): boolean =>
  n === undefined || (Number.isInteger(n) && n >= 0 && n <= usageBounds.maxTokens)

const normaliseUsageInto = (changes: FigureChanges, usage: Usage): Usage => {
  const max = usageBounds.maxTokens
  const cached = optionalCount(changes, "cached_tokens", usage.cachedTokens, max)
  const written = optionalCount(changes, "cache_write_tokens", usage.cacheWriteTokens, max)
  const reasoning = optionalCount(changes, "reasoning_tokens", usage.reasoningTokens, max)
  const audio = optionalCount(changes, "audio_prompt_tokens", usage.audioPromptTokens, max)
  return {
    promptTokens: changes.count("prompt_tokens", usage.promptTokens, max),
    completionTokens: changes.count("completion_tokens", usage.completionTokens, max),
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(written === undefined ? {} : { cacheWriteTokens: written }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
    ...(audio === undefined ? {} : { audioPromptTokens: audio })
  }
}

/**
 * Provider usage as whole, non-negative, bounded token counts, with the figures that changed as
 * received. Applied before pricing (so cost is computed from what is stored) and before the wire.
 */
export const normaliseUsage = (usage: Usage): { readonly usage: Usage; readonly raw: RawFigures | undefined } => {
  // The usual case, on every response: nothing to change, nothing to allocate.
  if (
    isBounded(usage.promptTokens) && isBounded(usage.completionTokens) && isBounded(usage.cachedTokens) &&
    isBounded(usage.cacheWriteTokens) && isBounded(usage.reasoningTokens) && isBounded(usage.audioPromptTokens)
  ) return { usage, raw: undefined }
  const changes = new FigureChanges()
  const normal = normaliseUsageInto(changes, usage)
  return { usage: changes.changed ? normal : usage, raw: changes.changed ? changes.raw : undefined }
}

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
