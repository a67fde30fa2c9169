import * as Effect from "effect/Effect"
import { GatewayError, PaymentRequired, ServiceUnavailable } from "../../Domain/GatewayError.ts"
import type { WorstCaseSource } from "../../Domain/AdmissionCost.ts"
import type { StoreFailurePolicy } from "../../Domain/LimitSettings.ts"
import { formatNanoUsd } from "../../Domain/NanoUsd.ts"
import type { AdmissionStats } from "./AdmissionStats.ts"
import type { Period, Refusal } from "./BillingDecision.ts"

/** The refusals of the admission step, as the client sees them. */

export const notPriced = (model: string): GatewayError =>
  GatewayError.invalid(
    `The model '${model}' has no price, and this project has a credit balance or spend limit: with billing.require_prices on, it cannot be used.`,
    "model",
    "model_not_priced"
  )

const usd = (nano: bigint) => `$${formatNanoUsd(nano < 0n ? 0n : nano, 6)}`

const count = (n: number) => n.toLocaleString("en-US")

/**
 * Why the worst case is what it is: the model whose price set it (a fallback says so) and the
 * output cap counted, with the field that lowers it. Empty when nothing is known.
 */
export const worstCaseReason = (setBy: WorstCaseSource | undefined): string => {
  if (setBy === undefined) return ""
  const model = `${setBy.fallback ? "the fallback model" : "the model"} '${setBy.model}'`
  const lower = "max_tokens (max_output_tokens on /v1/responses)"
  const output = setBy.outputTokens === undefined ? "" : count(setBy.outputTokens)
  switch (setBy.cap) {
    case "model":
      return ` The worst case is ${model} writing ${output} tokens, its output cap (max_output_tokens in its catalogue entry); send a smaller ${lower} to reserve less.`
    case "default":
      return ` The worst case is ${model} writing ${output} tokens, the reserve for a model that declares no max_output_tokens; send a smaller ${lower} to reserve less.`
    case "request":
      return ` The worst case is ${model} writing the ${output} tokens the request allows; lower ${lower} or shorten the input.`
    default:
      return ` The worst case is priced at ${model}.`
  }
}

/** What else lifts a spend-limit refusal: a higher limit, or the next day or month. */
const relief = (why: string, whose: string, period: Period): string =>
  `${why === "" ? "Raise" : "Or raise"} ${whose} ${period} limit${period === "total" ? "" : `, or wait for the next ${period}`}.`

export const billingRefused = (stats: AdmissionStats, refusal: Refusal, amount: bigint, setBy?: WorstCaseSource): GatewayError => {
  const needs = `this request may cost up to ${usd(amount)}`
  const why = worstCaseReason(setBy)
  let message: string
  let code: string
  switch (refusal.which) {
    case "balance":
      stats.refusedBalance++
      message = `The project's credit balance cannot cover this request: ${needs} and ${usd(refusal.available)} is available.${why} ${why === "" ? "Add" : "Or add"} credit to the project.`
      code = "insufficient_balance"
      break
    case "project_limit":
      stats.refusedProjectLimit++
      message = `The project's ${refusal.period} spend limit cannot cover this request: ${needs} and ${usd(refusal.available)} of the limit is left.${why} ${relief(why, "the project's", refusal.period)}`
      code = "project_spend_limit_reached"
      break
    case "key_limit":
      stats.refusedKeyLimit++
      message = `This API key's ${refusal.period} spend limit cannot cover this request: ${needs} and ${usd(refusal.available)} of the limit is left.${why} ${relief(why, "the key's", refusal.period)}`
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
