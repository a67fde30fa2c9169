import type { Principal } from "../../Domain/ApiKey.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { GatewayConfig } from "../../Domain/GatewayConfig.ts"
import type { WindowCharge, WindowState } from "../RateLimits/SlidingWindows.ts"

/** How long a project or key that had no credit left is refused before its body is read. */
const brokeMs = 1_000

/**
 * What admission knows from a request's headers alone, before its body is read: whether the
 * caller is already refused. The model is in the body, so only what holds for every model is
 * decided here: the key's and project's windows (a request always weighs at least one request and
 * one token there), and a project or key whose credit or spend limit had nothing left a moment ago,
 * when the catalogue has no free model it could still use. Everything else waits for the full
 * admission after the body is decoded, which remains the one that charges.
 *
 * The windows are asked (`WindowStore.peek`, which charges nothing) only for a caller this
 * instance last saw at a limit: every other request pays no store call for it. Another instance
 * may fill a window meanwhile; then the first request here reads its body and is refused by the
 * full admission, and the ones after it from their headers.
 */
export class AdmissionPrecheck {
  /** Key and project windows whose last known state had nothing left. */
  private readonly atLimit = new Set<string>()
  private readonly broke = new Map<string, { readonly until: number; readonly error: GatewayError }>()
  private readonly creditDecides: boolean

  constructor(creditDecides: boolean) {
    this.creditDecides = creditDecides
  }

  /** Whether any window was at its limit, or any caller out of credit, when last seen. */
  remembersAnything(): boolean {
    return this.atLimit.size > 0 || this.broke.size > 0
  }

  /** Whether any of `charges` was at its limit when last seen: only then are the windows asked. */
  mayBeLimited(charges: ReadonlyArray<WindowCharge>): boolean {
    if (this.atLimit.size === 0) return false
    for (const charge of charges) if (this.atLimit.has(charge.id)) return true
    return false
  }

  /** Notes what a decision (admitted or not) left in each window. */
  noteStates(states: ReadonlyArray<WindowState>): void {
    for (const state of states) {
      if (state.id.startsWith("m:")) continue
      if (state.remaining <= 0) this.atLimit.add(state.id)
      else this.atLimit.delete(state.id)
    }
  }

  /** The "no credit left" refusal a request of `principal` gets from its headers, or undefined. */
  creditRefusal(principal: Principal, now: number): GatewayError | undefined {
    if (this.broke.size === 0) return undefined
    return this.live(`k:${principal.keyId}`, now) ?? this.live(`p:${principal.projectId}`, now)
  }

  /** A billing refusal with nothing left (not merely too little for this request). */
  noteCreditRefusal(scope: string, available: bigint, error: GatewayError, now: number): void {
    if (this.creditDecides && available <= 0n) this.broke.set(scope, { until: now + brokeMs, error })
  }

  /** Balances or limits changed (an admin grant on this instance, the periodic reload). */
  forgetCredit(): void {
    this.broke.clear()
  }

  private live(id: string, now: number): GatewayError | undefined {
    const entry = this.broke.get(id)
    if (entry === undefined) return undefined
    if (entry.until > now) return entry.error
    this.broke.delete(id)
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
