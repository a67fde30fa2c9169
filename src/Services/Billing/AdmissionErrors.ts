import * as Effect from "effect/Effect"
import { GatewayError, PaymentRequired, RateLimited, ServiceUnavailable } from "../../Domain/GatewayError.ts"
import type { StoreFailurePolicy } from "../../Domain/LimitSettings.ts"
import { formatNanoUsd } from "../../Domain/NanoUsd.ts"
import type { WindowDecision } from "../RateLimits/SlidingWindows.ts"
import type { AdmissionStats } from "./AdmissionStats.ts"
import type { Refusal } from "./BillingDecision.ts"

/** The refusals of the admission step, as the client sees them. */

export const notPriced = (model: string): GatewayError =>
  GatewayError.invalid(
    `The model '${model}' has no price, and this project has a credit balance or spend limit: with billing.require_prices on, it cannot be used.`,
    "model",
    "model_not_priced"
  )

export const rateLimited = (decision: Extract<WindowDecision, { admitted: false }>, headers: Record<string, string>): GatewayError =>
  new GatewayError({
    reason: new RateLimited({
      message: decision.tooLarge
        ? "This request alone needs more tokens than the tokens-per-minute limit allows; lower max_completion_tokens or the input."
        : "Rate limit reached for requests or tokens per minute; retry after the time in the Retry-After header.",
      retryAfterMs: decision.retryAfterMs,
      code: decision.tooLarge ? "request_too_large" : "rate_limit_exceeded",
      headers
    })
  })

const usd = (nano: bigint) => `$${formatNanoUsd(nano < 0n ? 0n : nano, 6)}`

export const billingRefused = (stats: AdmissionStats, refusal: Refusal, amount: bigint): GatewayError => {
  const needs = `this request may cost up to ${usd(amount)}`
  let message: string
  let code: string
  switch (refusal.which) {
    case "balance":
      stats.refusedBalance++
      message = `The project's credit balance cannot cover this request: ${needs} and ${usd(refusal.available)} is available. Add credit to continue.`
      code = "insufficient_balance"
      break
    case "project_limit":
      stats.refusedProjectLimit++
      message = `The project's ${refusal.period} spend limit cannot cover this request: ${needs} and ${usd(refusal.available)} of the limit is left.`
      code = "project_spend_limit_reached"
      break
    case "key_limit":
      stats.refusedKeyLimit++
      message = `This API key's ${refusal.period} spend limit cannot cover this request: ${needs} and ${usd(refusal.available)} of the limit is left.`
      code = "key_spend_limit_reached"
      break
  }
  return new GatewayError({ reason: new PaymentRequired({ message, code }) })
}

const warned = new WeakMap<AdmissionStats, { billing: number; rate_limits: number }>()

/** An outage is logged once every 10 s, not once per request: the counters carry the volume. */
const warnedRecently = (stats: AdmissionStats, kind: "billing" | "rate_limits"): boolean => {
  const now = Date.now()
  let last = warned.get(stats)
  if (last === undefined) {
    last = { billing: 0, rate_limits: 0 }
    warned.set(stats, last)
  }
  if (now - last[kind] < 10_000) return true
  last[kind] = now
  return false
}

/**
 * A store that did not answer: `allow` admits the request unchecked, `deny` answers 503 and
 * sends nothing upstream. Either way it is logged and counted.
 */
export const storeDenied = (
  stats: AdmissionStats,
  policy: StoreFailurePolicy,
  kind: "billing" | "rate_limits",
  retryAfterMs: number,
  cause: unknown
): Effect.Effect<undefined, GatewayError> => {
  const store = kind === "billing" ? "the balances database" : "the rate-limit store"
  const outcome = policy === "allow" ? "admitted unchecked" : "refused"
  if (policy === "allow") stats.admittedOnStoreFailure++
  else stats.deniedOnStoreFailure++
  const log = warnedRecently(stats, kind)
    ? Effect.void
    : Effect.logWarning(`admission: ${store} did not answer; requests are ${outcome} (limits.on_store_failure.${kind}: ${policy}; logged at most every 10 s, counted always)`, cause)
  if (policy === "allow") return Effect.as(log, undefined)
  return Effect.andThen(
    log,
    Effect.fail(
      new GatewayError({
        reason: new ServiceUnavailable({
          message: kind === "billing"
            ? "The gateway cannot check this project's credit at the moment; retry shortly."
            : "The gateway cannot check rate limits at the moment; retry shortly.",
          retryAfterMs,
          code: `${kind === "billing" ? "billing" : "rate_limits"}_unavailable`
        })
      })
    )
  )
}
