import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { type WindowCharge, type WindowDecision, windowMs, type WindowState } from "./SlidingWindows.ts"
import type { WindowShareSource, WindowStore } from "./WindowStore.ts"

/**
 * A share of one window this instance took: one entry of `capacity` in the database, dated at the
 * end of the span it may be used in, so it counts in the window for at least a minute after every
 * request admitted from it.
 */
interface Share {
  readonly id: string
  readonly ticket: string
  readonly capacity: number
  used: number
  /** The weight of its entry in the database: the capacity, then what was used once it is handed back. */
  written: number
  /** Local time until which requests may be admitted from it. */
  readonly until: number
  /** The window's own figures when it was taken, for the rate-limit headers. */
  readonly limit: number
  readonly remainingAtTake: number
  readonly resetMs: number
  readonly takenAt: number
}

/** The recent weight admitted per window: what the next share is sized from. */
interface Rate {
  second: number
  current: number
  previous: number
}

/**
 * Rate limits in Postgres or Redis without a round trip per request: each instance takes a share
 * of a busy window in one decision (a transaction, a script call) and admits from it locally for
 * `spanMs` (docs/ARCHITECTURE.md, "Leases"). Exact in the "never exceeds" sense: every request
 * admitted from a share falls inside the share's entry's minute in the store. Windows near their
 * limit are decided per request.
 */
export const leasedWindowStore = (source: WindowShareSource, instanceId: string, spanMs: number): WindowStore => {
  const shares = new Map<string, Share>()
  // Which share a request was admitted from, per window: its TPM correction goes there. Kept
  // for two windows' time (a request's correction comes when it ends), oldest first.
  const tickets = new Map<string, { readonly at: number; readonly byWindow: Map<string, Share> }>()
  const rates = new Map<string, Rate>()
  const gate = Semaphore.makeUnsafe(1)
  let sequence = 0

  const note = (charge: WindowCharge, now: number) => {
    const second = Math.floor(now / 1000)
    let rate = rates.get(charge.id)
    if (rate === undefined) {
      rate = { second, current: 0, previous: 0 }
      rates.set(charge.id, rate)
    }
    if (rate.second !== second) {
      rate.previous = rate.second === second - 1 ? rate.current : 0
      rate.current = 0
      rate.second = second
    }
    rate.current += charge.weight
  }

  const usable = (charge: WindowCharge, now: number) => {
    const share = shares.get(charge.id)
    return share !== undefined && now < share.until && share.used + charge.weight <= share.capacity ? share : undefined
  }

  const stateOf = (share: Share, now: number): WindowState => ({
    id: share.id,
    limit: share.limit,
    remaining: Math.max(0, share.remainingAtTake - share.used),
    resetMs: Math.max(0, share.resetMs - (now - share.takenAt))
  })

  const admitLocally = (charges: ReadonlyArray<WindowCharge>, ticket: string, now: number): WindowDecision | undefined => {
    const found: Array<Share> = []
    for (const charge of charges) {
      const share = usable(charge, now)
      if (share === undefined) return undefined
      found.push(share)
    }
    const byWindow = new Map<string, Share>()
    charges.forEach((charge, i) => {
      found[i]!.used += charge.weight
      byWindow.set(charge.id, found[i]!)
    })
    tickets.set(ticket, { at: now, byWindow })
    return { admitted: true, states: found.map((share) => stateOf(share, now)) }
  }

  /** What a share would like: the window's recent weight per second over the span (`shareSize` caps it). */
  const want = (charge: WindowCharge) => {
    const rate = rates.get(charge.id)
    const recent = rate === undefined ? 0 : Math.max(rate.current, rate.previous)
    return Math.ceil((recent * spanMs) / 1000)
  }

  const take = (charges: ReadonlyArray<WindowCharge>, ticket: string, now: number) =>
    gate.withPermit(
      Effect.suspend(() => {
        // Another request may have taken fresh shares while this one waited.
        const local = admitLocally(charges, ticket, now)
        if (local !== undefined) return Effect.succeed(local)
        const shareTicket = `lease:${instanceId}:${sequence++}`
        const handBack: Array<Share> = []
        return Effect.map(source.take(charges, shareTicket, { want, aheadMs: spanMs }), ({ decision, charged }) => {
          if (!decision.admitted) return decision
          const byWindow = new Map<string, Share>()
          decision.states.forEach((state, i) => {
            const charge = charges[i]!
            const capacity = charged.get(charge.id) ?? charge.weight
            // Near the limit the entry is this request's own: nothing is admitted from it later.
            const own = capacity <= charge.weight
            const previous = shares.get(charge.id)
            if (previous !== undefined && !own) handBack.push(previous)
            const share: Share = {
              id: charge.id,
              ticket: shareTicket,
              capacity: charged.get(charge.id) ?? charge.weight,
              written: charged.get(charge.id) ?? charge.weight,
              used: charge.weight,
              until: own ? now : now + spanMs,
              limit: state.limit,
              remainingAtTake: state.remaining + (charged.get(charge.id) ?? charge.weight),
              resetMs: state.resetMs,
              takenAt: now
            }
            if (!own) shares.set(charge.id, share)
            byWindow.set(charge.id, share)
          })
          tickets.set(ticket, { at: now, byWindow })
          // The headers count what this request used, not the share taken for the ones after it.
          return { admitted: true, states: charges.map((charge) => stateOf(byWindow.get(charge.id)!, now)) } satisfies WindowDecision
        }).pipe(Effect.tap(() => Effect.forEach(handBack, write, { discard: true })))
      })
    )

  /**
   * Brings a share's entry to what was used from it: down once its span is over (what was not
   * used is free again; it stays dated at the span's end), up whenever a correction took it over.
   */
  const write = (share: Share) => {
    if (share.used === share.written) return Effect.void
    const weight = Math.max(0, Math.round(share.used))
    return source.reweigh(share.id, share.ticket, share.written, weight).pipe(
      Effect.tap(() => Effect.sync(() => (share.written = weight))),
      Effect.ignore
    )
  }

  /** Shares whose span is over are handed back; tickets too old for a correction are forgotten. */
  const tidy = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const over: Array<Share> = []
    for (const [id, share] of shares) {
      if (now < share.until) continue
      shares.delete(id)
      over.push(share)
    }
    for (const [ticket, entry] of tickets) {
      if (now - entry.at < 2 * windowMs) break
      tickets.delete(ticket)
    }
    return Effect.forEach(over, write, { discard: true })
  })

  return {
    name: source.name,
    peek: source.peek,
    acquire: (charges, ticket) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        for (const charge of charges) note(charge, now)
        const local = admitLocally(charges, ticket, now)
        return local === undefined ? take(charges, ticket, now) : Effect.succeed(local)
      }),
    // A correction lands on the share the request was counted in: it frees room in a share
    // still in use, and raises the share's entry if the request used more than it was charged.
    adjust: (ticket, corrections) => {
      const entry = tickets.get(ticket)
      tickets.delete(ticket)
      if (entry === undefined) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.forEach(corrections, (c) => {
          const share = entry.byWindow.get(c.id)
          if (share === undefined) return Effect.void
          share.used += c.to - c.from
          // A share still admitting keeps its entry at least at its capacity; any other entry
          // follows what was used, down as well as up.
          const admitting = shares.get(c.id) === share && now < share.until
          return !admitting || share.used > share.written ? write(share) : Effect.void
        }, { discard: true }))
    },
    sweep: Effect.andThen(tidy, source.sweep ?? Effect.void)
  }
}
