import type { Principal } from "../../Domain/ApiKey.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { GatewayConfig } from "../../Domain/GatewayConfig.ts"
import type { WindowCharge, WindowDecision } from "../RateLimits/SlidingWindows.ts"

/** How long a project or key that had no credit left is refused before its body is read. */
const brokeMs = 1_000

/**
 * What admission knows from a request's headers alone, before its body is read: whether the
 * caller is already refused. The model is in the body, so only what holds for every model is
 * decided here: the key's and project's request windows (a request always weighs 1 there), and a
 * project or key whose credit or spend limit had nothing left a moment ago, when the catalogue
 * has no free model it could still use. Everything else waits for the full admission after the
 * body is decoded, which remains the one that charges.
 *
 * For stores that can answer at once (the process's own windows), the windows are peeked
 * exactly; for shared stores (Redis, Postgres), a refusal is remembered until its Retry-After,
 * only when a request window alone refused it (so the wait is that window's own).
 */
export class AdmissionPrecheck {
  private readonly blocked = new Map<string, { readonly until: number; readonly error: GatewayError }>()
  private readonly broke = new Map<string, { readonly until: number; readonly error: GatewayError }>()

  private readonly creditDecides: boolean

  constructor(creditDecides: boolean) {
    this.creditDecides = creditDecides
  }

  /** The refusal a request of `principal` gets from its headers, or undefined. */
  refusal(principal: Principal, now: number): GatewayError | undefined {
    if (this.blocked.size > 0) {
      const found = this.live(this.blocked, `k:${principal.keyId}:r`, now) ?? this.live(this.blocked, `p:${principal.projectId}:r`, now)
      if (found !== undefined) return found
    }
    if (this.broke.size > 0) return this.live(this.broke, `k:${principal.keyId}`, now) ?? this.live(this.broke, `p:${principal.projectId}`, now)
    return undefined
  }

  /** A refusal by the rate-limit store: remembered when one request window alone refused it. */
  noteRateRefusal(charges: ReadonlyArray<WindowCharge>, decision: Extract<WindowDecision, { admitted: false }>, error: GatewayError, now: number): void {
    const refusing = decision.states.filter((state, i) => state.remaining < (charges[i]?.weight ?? 0))
    const only = refusing.length === 1 ? refusing[0]! : undefined
    if (only === undefined || !only.id.endsWith(":r") || only.id.startsWith("m:")) return
    this.blocked.set(only.id, { until: now + decision.retryAfterMs, error })
  }

  /** A billing refusal with nothing left (not merely too little for this request). */
  noteCreditRefusal(scope: string, available: bigint, error: GatewayError, now: number): void {
    if (this.creditDecides && available <= 0n) this.broke.set(scope, { until: now + brokeMs, error })
  }

  /** Balances or limits changed (an admin grant on this instance, the periodic reload). */
  forgetCredit(): void {
    this.broke.clear()
  }

  private live(map: Map<string, { readonly until: number; readonly error: GatewayError }>, id: string, now: number) {
    const entry = map.get(id)
    if (entry === undefined) return undefined
    if (entry.until > now) return entry.error
    map.delete(id)
    return undefined
  }
}

/**
 * Whether "no credit left" refuses every request whatever its model: true when no model in the
 * catalogue could be served for free (every model is priced above zero, or unpriced models are
 * refused by `billing.require_prices`).
 */
export const creditDecidesEveryModel = (config: GatewayConfig): boolean =>
  config.models.every((model) => {
    const prices = Object.values(model.pricing).filter((price): price is number => typeof price === "number")
    if (prices.length === 0) return config.billing.require_prices
    return prices.some((price) => price > 0)
  })

/** The windows a request is charged against whatever its model: the key's and the project's, one request, one token. */
export const headerCharges = (charges: ReadonlyArray<WindowCharge>): Array<WindowCharge> =>
  charges.filter((charge) => !charge.id.startsWith("m:")).map((charge) => ({ ...charge, weight: 1 }))
