/**
 * Rate limits as sliding-window logs: every admitted request leaves an entry (its time, its
 * weight: 1 for RPM, its tokens for TPM) that counts for exactly one minute. A request is
 * admitted only if, in every window it charges, the weight of the last minute plus its own fits
 * the limit, so no 60-second interval ever holds more than the limit (GCRA would allow up to
 * twice the limit over some minute, a burst then the refill). See docs/ARCHITECTURE.md.
 */

export const windowMs = 60_000

/** One limit a request is charged against: `id` names the subject and the unit (`key:<id>:tpm`). */
export interface WindowCharge {
  readonly id: string
  readonly limit: number
  readonly weight: number
}

/** A window's state after the decision, for the `x-ratelimit-*` headers. */
export interface WindowState {
  readonly id: string
  readonly limit: number
  readonly remaining: number
  /** Until the window is empty again (everything in it has aged out). */
  readonly resetMs: number
}

export type WindowDecision =
  | { readonly admitted: true; readonly states: ReadonlyArray<WindowState> }
  | { readonly admitted: false; readonly retryAfterMs: number; readonly states: ReadonlyArray<WindowState>; readonly tooLarge: boolean }

/**
 * The wait until `weight` fits a window holding `entries` (oldest first) with `total` weight:
 * the moment enough of the oldest entries have aged out. A weight above the limit never fits.
 */
export const waitUntilFits = (
  entries: ReadonlyArray<{ readonly at: number; readonly weight: number }>,
  total: number,
  limit: number,
  weight: number,
  now: number
): number => {
  if (weight > limit) return windowMs
  let freed = 0
  for (const entry of entries) {
    freed += entry.weight
    if (total - freed + weight <= limit) return Math.max(1, entry.at + windowMs - now)
  }
  return windowMs
}

interface Entry {
  at: number
  weight: number
  readonly ticket: string
}

class Window {
  entries: Array<Entry> = []
  head = 0
  total = 0
  prune(now: number) {
    const cutoff = now - windowMs
    while (this.head < this.entries.length && this.entries[this.head]!.at <= cutoff) {
      this.total -= this.entries[this.head]!.weight
      this.head++
    }
    // Compacted when half of the array is spent: amortised O(1) per entry.
    if (this.head > 64 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
  }
  live(): ReadonlyArray<Entry> {
    return this.head === 0 ? this.entries : this.entries.slice(this.head)
  }
  resetMs(now: number): number {
    const last = this.entries[this.entries.length - 1]
    return this.head >= this.entries.length || last === undefined ? 0 : Math.max(0, last.at + windowMs - now)
  }
}

/** The windows of one process: exact for a single instance (embedded storage, or no REDIS_URL). */
export class SlidingWindows {
  private readonly windows = new Map<string, Window>()

  private window(id: string): Window {
    let window = this.windows.get(id)
    if (window === undefined) {
      window = new Window()
      this.windows.set(id, window)
    }
    return window
  }

  /** Admits `ticket` into every window of `charges`, or into none. */
  acquire(charges: ReadonlyArray<WindowCharge>, ticket: string, now: number): WindowDecision {
    let retryAfterMs = 0
    let tooLarge = false
    for (const charge of charges) {
      const window = this.window(charge.id)
      window.prune(now)
      if (window.total + charge.weight > charge.limit) {
        if (charge.weight > charge.limit) tooLarge = true
        retryAfterMs = Math.max(retryAfterMs, waitUntilFits(window.live(), window.total, charge.limit, charge.weight, now))
      }
    }
    if (retryAfterMs === 0) {
      for (const charge of charges) {
        const window = this.window(charge.id)
        window.entries.push({ at: now, weight: charge.weight, ticket })
        window.total += charge.weight
      }
    }
    const states = charges.map((charge): WindowState => {
      const window = this.window(charge.id)
      return { id: charge.id, limit: charge.limit, remaining: Math.max(0, charge.limit - window.total), resetMs: window.resetMs(now) }
    })
    return retryAfterMs === 0 ? { admitted: true, states } : { admitted: false, retryAfterMs, states, tooLarge }
  }

  /** What `acquire` would decide for `charges` now, without charging anything. */
  peek(charges: ReadonlyArray<WindowCharge>, now: number): WindowDecision {
    let retryAfterMs = 0
    const states = charges.map((charge): WindowState => {
      const window = this.windows.get(charge.id)
      if (window === undefined) return { id: charge.id, limit: charge.limit, remaining: charge.limit, resetMs: 0 }
      window.prune(now)
      if (window.total + charge.weight > charge.limit) {
        retryAfterMs = Math.max(retryAfterMs, waitUntilFits(window.live(), window.total, charge.limit, charge.weight, now))
      }
      return { id: charge.id, limit: charge.limit, remaining: Math.max(0, charge.limit - window.total), resetMs: window.resetMs(now) }
    })
    return retryAfterMs === 0 ? { admitted: true, states } : { admitted: false, retryAfterMs, states, tooLarge: false }
  }

  /** Corrects the weight `ticket` was charged in window `id` (TPM at settlement); nothing if it aged out. */
  adjust(id: string, ticket: string, weight: number, now: number): void {
    const window = this.windows.get(id)
    if (window === undefined) return
    window.prune(now)
    for (let i = window.entries.length - 1; i >= window.head; i--) {
      const entry = window.entries[i]!
      if (entry.ticket !== ticket) continue
      window.total += weight - entry.weight
      entry.weight = weight
      return
    }
  }

  /** The weight counted in window `id` at `now` (tests, stats). */
  used(id: string, now: number): number {
    const window = this.windows.get(id)
    if (window === undefined) return 0
    window.prune(now)
    return window.total
  }
}
