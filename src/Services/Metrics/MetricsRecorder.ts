import { Counter, type CounterConfiguration, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client"
import type { UsageEvent } from "../../Domain/UsageEvent.ts"
import type { AdmissionStats } from "../Billing/AdmissionStats.ts"
import type { LiveRequest, RequestObserver } from "../Usage/RequestObserver.ts"
import type { UsageLedgerStats } from "../Usage/UsageLedgerStats.ts"
import { attemptOutcomes } from "./AttemptOutcomes.ts"


const latencyBuckets = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
const ttftBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]

/** Counters that only ever pass on the ledger's own totals, read at scrape time. */
const passOn = <L extends string>(config: CounterConfiguration<L>, read: () => number) => {
  let seen = 0
  return new Counter({
    ...config,
    collect() {
      const now = read()
      if (now > seen) this.inc(now - seen)
      seen = now
    }
  })
}

/**
 * The gateway's Prometheus metrics in a registry of their own. Labels are bounded: routes are
 * the endpoint families, models are catalogue ids (anything else is "other"), providers come
 * from gateway.yaml, projects are admin-created; no key, user or request id is ever a label.
 */
export class MetricsRecorder implements RequestObserver {
  readonly registry = new Registry()
  readonly live = new Set<LiveRequest>()
  private readonly models: ReadonlySet<string>
  private readonly requests: Counter<"route" | "status" | "model">
  private readonly latency: Histogram<"route" | "model">
  private readonly ttft: Histogram<"model">
  private readonly attempts: Counter<"provider" | "outcome">
  private readonly tokens: Counter<"model" | "project" | "type">
  private readonly cost: Counter<"model" | "project">
  private readonly refusals: Counter<"route" | "reason">

  constructor(
    models: ReadonlyArray<string>,
    ledgerStats: () => UsageLedgerStats | undefined,
    admissionStats: () => AdmissionStats | undefined = () => undefined
  ) {
    this.models = new Set(models)
    const registers = [this.registry]
    this.requests = new Counter({ name: "gateway_requests_total", help: "Requests served, by route, HTTP status and model.", labelNames: ["route", "status", "model"], registers })
    this.latency = new Histogram({ name: "gateway_request_duration_seconds", help: "Time from a request's arrival to its last byte.", labelNames: ["route", "model"], buckets: latencyBuckets, registers })
    this.ttft = new Histogram({ name: "gateway_time_to_first_token_seconds", help: "Streams: time from arrival to the first content chunk.", labelNames: ["model"], buckets: ttftBuckets, registers })
    this.attempts = new Counter({ name: "gateway_upstream_attempts_total", help: "Provider calls by outcome: ok, retried, fallback, error, cancelled, cooled_down.", labelNames: ["provider", "outcome"], registers })
    this.tokens = new Counter({ name: "gateway_tokens_total", help: "Tokens billed, by model, project and type (prompt, completion, cached).", labelNames: ["model", "project", "type"], registers })
    this.cost = new Counter({ name: "gateway_cost_usd_total", help: "Cost in USD, by model and project.", labelNames: ["model", "project"], registers })
    this.refusals = new Counter({ name: "gateway_refusals_total", help: "Requests refused by a rate limit (429 rate_limit_error) or billing (402 billing_error).", labelNames: ["route", "reason"], registers })
    const live = this.live
    new Gauge({ name: "gateway_open_streams", help: "Streamed responses being sent now.", registers, collect() {
      let open = 0
      for (const request of live) if (request.streamed) open++
      this.set(open)
    } })
    new Gauge({ name: "gateway_requests_in_flight", help: "Metered requests being served now.", registers, collect() {
      this.set(live.size)
    } })
    const stat = (read: (s: UsageLedgerStats) => number) => () => {
      const s = ledgerStats()
      return s === undefined ? 0 : read(s)
    }
    new Gauge({ name: "gateway_usage_ledger_queue_depth", help: "Usage events waiting to be written.", registers, collect() {
      this.set(stat((s) => s.queued)())
    } })
    passOn({ name: "gateway_usage_ledger_flush_failures_total", help: "Flushes that found the database unreachable.", registers }, stat((s) => s.writeFailures))
    passOn({ name: "gateway_usage_ledger_dropped_total", help: "Usage events shed because the queue was full.", registers }, stat((s) => s.dropped))
    passOn({ name: "gateway_usage_ledger_dead_lettered_total", help: "Usage events the database refused (kept in usage_dead_letters).", registers }, stat((s) => s.deadLettered))
    passOn({ name: "gateway_usage_ledger_written_total", help: "Usage events written.", registers }, stat((s) => s.written))
    // Admission's own counters: its stores failing (and what `limits.on_store_failure` did), settlements lost.
    const admission = (read: (s: AdmissionStats) => number) => () => {
      const s = admissionStats()
      return s === undefined ? 0 : read(s)
    }
    passOn({ name: "gateway_admission_store_failures_total", help: "Admission checks whose store did not answer (billing: the database; rate limits: Redis or the database).", registers }, admission((s) => s.billingStoreFailures + s.rateLimitStoreFailures))
    passOn({ name: "gateway_admission_admitted_unchecked_total", help: "Requests admitted unchecked because a store failed under the allow policy.", registers }, admission((s) => s.admittedOnStoreFailure))
    passOn({ name: "gateway_admission_settle_failures_total", help: "Attempts to write billed usage and its settlement that failed; retried with the events, or settled by reconciliation.", registers }, () => admission((s) => s.settleFailures)() + stat((s) => s.settleFailures)())
    // Process memory, CPU, event-loop delay and garbage collection, under their usual names.
    collectDefaultMetrics({ register: this.registry })
  }

  private model(name: string | null): string {
    if (name === null) return "none"
    return this.models.has(name) ? name : "other"
  }

  /** Called once per request, when the usage meter opens: an in-flight request. */
  readonly started = (request: LiveRequest): void => {
    this.live.add(request)
  }

  /**
   * Called once per request, from the usage meter's finalizer, before the event is recorded:
   * it never throws, so a metrics fault cannot cost a usage row.
   */
  readonly ended = (request: LiveRequest, event: UsageEvent, projectId: string): void => {
    this.live.delete(request)
    try {
      this.count(event, request.log.cooledDown, projectId)
    } catch {
      // Only a prom-client bug could land here; the request's usage matters more than its metrics.
    }
  }

  private count(event: UsageEvent, cooledDown: ReadonlyArray<string>, projectId: string): void {
    const model = this.model(event.usedModel ?? event.requestedModel)
    this.requests.inc({ route: event.endpoint, status: String(event.status), model })
    this.latency.observe({ route: event.endpoint, model }, event.latencyMs / 1000)
    if (event.ttftMs !== null) this.ttft.observe({ model }, event.ttftMs / 1000)
    for (const [provider, outcome] of attemptOutcomes(event.attempts, cooledDown)) {
      this.attempts.inc({ provider, outcome })
    }
    if (event.promptTokens > 0) this.tokens.inc({ model, project: projectId, type: "prompt" }, event.promptTokens)
    if (event.completionTokens > 0) this.tokens.inc({ model, project: projectId, type: "completion" }, event.completionTokens)
    if (event.cachedTokens > 0) this.tokens.inc({ model, project: projectId, type: "cached" }, event.cachedTokens)
    if (event.costNanoUsd > 0) this.cost.inc({ model, project: projectId }, event.costNanoUsd / 1e9)
    if (event.status === 429 && event.error?.type === "rate_limit_error") this.refusals.inc({ route: event.endpoint, reason: "rate_limit" })
    if (event.status === 402 && event.error?.type === "billing_error") this.refusals.inc({ route: event.endpoint, reason: "billing" })
  }
}
