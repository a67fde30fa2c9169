/** The endpoint families usage is recorded for; ids match the `usage_endpoints` table. */
export const usageEndpoints = {
  chat: 1,
  embeddings: 2,
  audio: 3,
  images: 4,
  files: 5,
  tools: 6,
  decisions: 7
} as const
export type UsageEndpoint = keyof typeof usageEndpoints

/** One provider call made while serving a request. */
export interface UsageAttempt {
  readonly provider: string
  readonly model: string
  readonly outcome: "ok" | "error" | "cancelled"
  readonly status?: number
  readonly ms: number
}

/** One metered request, as the ledger stores it. */
export interface UsageEvent {
  /** Unix milliseconds when the request arrived. */
  readonly occurredAt: number
  readonly requestId: string
  readonly projectSeq: number
  readonly keySeq: number
  readonly endpoint: UsageEndpoint
  readonly requestedModel: string | null
  readonly usedModel: string | null
  readonly provider: string | null
  /** HTTP status the client saw (200 for a stream that started, even if it later failed). */
  readonly status: number
  readonly cancelled: boolean
  readonly streamed: boolean
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly cacheWriteTokens: number
  /** Non-token units: seconds of audio, number of images. */
  readonly units: number
  readonly latencyMs: number
  readonly ttftMs: number | null
  readonly attempts: ReadonlyArray<UsageAttempt>
  readonly costNanoUsd: number
  /** The provider never reported usage (a cancelled or broken stream): the tokens are estimates. */
  readonly usageEstimated?: boolean
  /** The error the client got, when the request failed before a response started. */
  readonly error?: UsageError
  /** The dialect the client spoke when not chat completions (`messages`, `responses`). */
  readonly dialect?: string
  /** The translation report's summary (`dropped=top_k; rewritten=...`) when something was dropped or rewritten. */
  readonly translation?: string
  /** Figures as received where normalisation changed them (see UsageNormaliser.ts). */
  readonly raw?: Readonly<Record<string, unknown>>
  /** The request's trace id, when traces are exported (the request log links to it). */
  readonly traceId?: string
  /**
   * Set when the request is billed: whom its cost is settled against. The ledger writes the
   * settlement in the same transaction as the usage row (and only with a row it inserted), so
   * the two are durable together and never twice; a spill file carries it to the next start.
   */
  readonly settlement?: UsageSettlement
}

/** The billing side of a usage event: the project and key charged, and the lease it was admitted from, if any. */
export interface UsageSettlement {
  readonly projectId: string
  readonly keyId: string
  readonly leaseId?: string
}

/** What failed, as the client saw it: `error.type`, `error.code` and, for provider failures, the kind. */
export interface UsageError {
  readonly type: string
  readonly code?: string
  readonly kind?: string
}

export interface UsageTotals {
  readonly requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly cache_write_tokens: number
  readonly units: number
  /** Derived from `cost_nano_usd` by decimal formatting, never by float arithmetic. */
  readonly cost_usd: number
  /** The exact cost: integer nano-dollars as a decimal string (sums can pass 2^53). */
  readonly cost_nano_usd: string
}

export interface UsageReport {
  readonly object: "usage_report"
  readonly project_id: string
  readonly from: number
  readonly to: number
  readonly totals: UsageTotals
  readonly by_model: ReadonlyArray<UsageTotals & { readonly model: string | null }>
}
