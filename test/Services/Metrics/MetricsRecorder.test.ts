import { describe, expect, it } from "@effect/vitest"
import type { UsageEvent } from "../../../src/Domain/UsageEvent.ts"
import { attemptOutcomes } from "../../../src/Services/Metrics/AttemptOutcomes.ts"
import { MetricsRecorder } from "../../../src/Services/Metrics/MetricsRecorder.ts"
import { parseScrape } from "../../support/PrometheusText.ts"
import { AdmissionStats } from "../../../src/Services/Billing/AdmissionStats.ts"

const event = (over: Partial<UsageEvent>): UsageEvent => ({
  occurredAt: 0,
  requestId: "req_1",
  projectSeq: 1,
  keySeq: 1,
  endpoint: "chat",
  requestedModel: "gpt-test",
  usedModel: null,
  provider: null,
  status: 200,
  cancelled: false,
  streamed: false,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  units: 0,
  latencyMs: 5,
  ttftMs: null,
  attempts: [],
  costNanoUsd: 0,
  ...over
})

const request = { streamed: false, log: { cooledDown: [] } }

describe("MetricsRecorder", () => {
  it("counts billing and rate-limit refusals from the status and error type the client got", async () => {
    const recorder = new MetricsRecorder(["gpt-test"], () => undefined)
    recorder.ended(request, event({ status: 402, error: { type: "billing_error", code: "insufficient_credit" } }), "proj_a")
    recorder.ended(request, event({ status: 429, error: { type: "rate_limit_error" } }), "proj_a")
    recorder.ended(request, event({ endpoint: "embeddings", status: 429, error: { type: "rate_limit_error" } }), "proj_a")
    // A 402 of another type is no billing refusal.
    recorder.ended(request, event({ status: 402, error: { type: "invalid_request_error" } }), "proj_a")
    const m = parseScrape(await recorder.registry.metrics())
    expect(m.value("gateway_refusals_total", { route: "chat", reason: "billing" })).toBe(1)
    expect(m.value("gateway_refusals_total", { route: "chat", reason: "rate_limit" })).toBe(1)
    expect(m.value("gateway_refusals_total", { route: "embeddings", reason: "rate_limit" })).toBe(1)
    expect(m.value("gateway_refusals_total")).toBe(3)
  })

  it("labels models outside the catalogue 'other' and requests without a model 'none'", async () => {
    const recorder = new MetricsRecorder(["gpt-test"], () => undefined)
    for (let i = 0; i < 50; i++) recorder.ended(request, event({ requestedModel: `made-up-${i}`, status: 404 }), "proj_a")
    recorder.ended(request, event({ requestedModel: null, status: 400 }), "proj_a")
    const m = parseScrape(await recorder.registry.metrics())
    expect(m.samples("gateway_requests_total", {}).map((s) => s.labels?.["model"]).sort()).toEqual(["none", "other"])
    expect(m.value("gateway_requests_total", { model: "other" })).toBe(50)
  })

  it("reads the ledger's queue and failure counters at scrape time", async () => {
    let failures = 0
    const recorder = new MetricsRecorder([], () => ({
      queued: 7, written: 3, deadLettered: 0, rejected: 0, dropped: 2, normalised: 0, writeFailures: failures, spilled: 0, replayed: 0, settled: 5, settleFailures: failures, lastFailure: null
    }))
    failures = 4
    let m = parseScrape(await recorder.registry.metrics())
    expect(m.value("gateway_usage_ledger_queue_depth")).toBe(7)
    expect(m.value("gateway_usage_ledger_flush_failures_total")).toBe(4)
    failures = 6
    m = parseScrape(await recorder.registry.metrics())
    expect(m.value("gateway_usage_ledger_flush_failures_total")).toBe(6)
    expect(m.value("gateway_usage_ledger_dropped_total")).toBe(2)
    // Billed events whose write (with their settlement) failed count as settle failures.
    expect(m.value("gateway_admission_settle_failures_total")).toBe(6)
  })

  it("passes on admission's store failures, unchecked admissions and lost settlements", async () => {
    const stats = new AdmissionStats()
    const recorder = new MetricsRecorder([], () => undefined, () => stats)
    stats.billingStoreFailures = 2
    stats.rateLimitStoreFailures = 3
    stats.admittedOnStoreFailure = 3
    stats.settleFailures = 1
    const m = parseScrape(await recorder.registry.metrics())
    expect(m.value("gateway_admission_store_failures_total")).toBe(5)
    expect(m.value("gateway_admission_admitted_unchecked_total")).toBe(3)
    expect(m.value("gateway_admission_settle_failures_total")).toBe(1)
  })
})

describe("attemptOutcomes", () => {
  const attempt = (provider: string, model: string, outcome: "ok" | "error" | "cancelled") => ({ provider, model, outcome, ms: 1 })
  it("names retries, fallbacks, the final error and routes found cooling down", () => {
    expect(attemptOutcomes([
      attempt("a", "m", "error"),
      attempt("a", "m", "error"),
      attempt("b", "m", "error"),
      attempt("c", "n", "ok")
    ], ["d"])).toEqual([["a", "retried"], ["a", "fallback"], ["b", "fallback"], ["c", "ok"], ["d", "cooled_down"]])
    expect(attemptOutcomes([attempt("a", "m", "error")], [])).toEqual([["a", "error"]])
    expect(attemptOutcomes([attempt("a", "m", "cancelled")], [])).toEqual([["a", "cancelled"]])
  })
})
