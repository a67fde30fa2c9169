/**
 * The admission rule for money, pure so that the database store and the property tests apply
 * the same one. Amounts are integer nano-dollars as bigint. A reservation counts against the
 * balance and against every spend window at once (it will settle now, inside all of them).
 */

export type Period = "day" | "month" | "total"
export const periods: ReadonlyArray<Period> = ["day", "month", "total"]

export interface LimitUse {
  readonly scope: "project" | "key"
  readonly period: Period
  readonly limit: bigint
  /** Settled in the current period. */
  readonly spent: bigint
}

export interface BillingState {
  /** null: no prepaid balance (unlimited). */
  readonly balance: bigint | null
  /** Open reservations of the project, and of the key among them. */
  readonly reservedProject: bigint
  readonly reservedKey: bigint
  readonly limits: ReadonlyArray<LimitUse>
}

export type Refusal =
  | { readonly which: "balance"; readonly available: bigint }
  | { readonly which: "project_limit" | "key_limit"; readonly period: Period; readonly available: bigint }

/** undefined when `amount` can be reserved; else the first thing that cannot cover it. */
export const refusalOf = (state: BillingState, amount: bigint): Refusal | undefined => {
  if (state.balance !== null) {
    const available = state.balance - state.reservedProject
    if (amount > available || available <= 0n) return { which: "balance", available }
  }
  for (const scope of ["project", "key"] as const) {
    for (const use of state.limits) {
      if (use.scope !== scope) continue
      const available = use.limit - use.spent - (scope === "project" ? state.reservedProject : state.reservedKey)
      if (amount > available) return { which: scope === "project" ? "project_limit" : "key_limit", period: use.period, available }
    }
  }
  return undefined
}

/** The start of the period containing `now` (UTC), or the epoch for `total`. */
export const periodStart = (period: Period, now: number): number => {
  if (period === "total") return 0
  const date = new Date(now)
  return period === "day"
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
    : Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
}

/**
 * The most `refusalOf` would accept now: what is left of the balance and of every limit after
 * what is settled and held. undefined: nothing bounds it (no balance, no limit).
 */
export const roomOf = (state: BillingState): bigint | undefined => {
  let room: bigint | undefined = state.balance === null ? undefined : state.balance - state.reservedProject
  for (const use of state.limits) {
    const left = use.limit - use.spent - (use.scope === "project" ? state.reservedProject : state.reservedKey)
    if (room === undefined || left < room) room = left
  }
  return room
}

/** Below this many times the smallest useful grant, a lease takes only that (a hold per request). */
export const exactBelow = 16n
/** A lease takes at most this share of what is left, so slices shrink as the balance nears zero. */
export const leaseShare = 4n

/**
 * How much a lease takes: `want` (sized from the instance's recent admissions), at least `least`
 * (what the request waiting for it needs), at most a quarter of the room, and only `least` when
 * the room is down to a few requests' worth. undefined: not even `least` fits.
 */
export const leaseGrant = (room: bigint | undefined, want: bigint, least: bigint): bigint | undefined => {
  const wanted = want > least ? want : least
  if (room === undefined) return wanted
  if (room < least || room <= 0n) return undefined
  if (room < exactBelow * least) return least
  const cap = room / leaseShare
  return wanted < cap ? wanted : cap
}
