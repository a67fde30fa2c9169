import type { UsageEvent } from "../../src/Domain/UsageEvent.ts"

/** A plain, valid usage event; tests override what they are about. */
export const usageEvent = (over: Partial<UsageEvent> = {}): UsageEvent => ({
  occurredAt: Date.UTC(2026, 10, 21, 12),
  requestId: "req_0123456789ab",
  projectSeq: 1,
  keySeq: 1,
  endpoint: "chat",
  requestedModel: "gpt-test",
  usedModel: "gpt-test",
  provider: "openai",
  status: 200,
  cancelled: false,
  streamed: false,
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  units: 0,
  latencyMs: 12,
  ttftMs: null,
  attempts: [{ provider: "openai", model: "gpt-test", outcome: "ok", ms: 10 }],
  costNanoUsd: 1000,
  ...over
})
