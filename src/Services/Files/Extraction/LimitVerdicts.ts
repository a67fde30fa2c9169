import type { FailureInfo } from "./ExtractionFailure.ts"

/**
 * Contents that overran a time or memory bound, remembered in this process (by reader and
 * SHA-256) so a repeat is refused at once instead of pinning a worker for the whole timeout
 * again. Kept apart from the shared cache: such a verdict depends on the settings and the load
 * of the instance that reached it, so it expires (`ttlMs`) and stays local.
 */
export interface LimitVerdicts {
  readonly recall: (key: string) => FailureInfo | undefined
  readonly remember: (key: string, failure: FailureInfo) => void
}

export const makeLimitVerdicts = (options: { readonly maxEntries: number; readonly ttlMs: number; readonly now: () => number }): LimitVerdicts => {
  const entries = new Map<string, { readonly failure: FailureInfo; readonly until: number }>()
  return {
    recall: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until > options.now()) return entry.failure
      entries.delete(key)
      return undefined
    },
    remember: (key, failure) => {
      entries.delete(key)
      entries.set(key, { failure, until: options.now() + options.ttlMs })
      // Oldest first: a Map iterates in insertion order.
      for (const oldest of entries.keys()) {
        if (entries.size <= options.maxEntries) break
        entries.delete(oldest)
      }
    }
  }
}
