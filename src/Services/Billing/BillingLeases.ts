import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import type * as SqlError from "effect/sql/SqlError"
import type { Refusal } from "./BillingDecision.ts"
import type { LeaseStore, LeaseTakeOutcome } from "./LeaseStore.ts"

export interface LeaseOptions {
  /** Names this instance's leases (`lease:<instance>:<key>`). */
  readonly instanceId: string
  readonly ttlMs: number
  /** Below this many admissions a second for a key, each request holds its own reservation. */
  readonly minRate: number
  /** A slice covers this long at the recent admission rate. */
  readonly horizonMs: number
}

export type LeaseAdmission =
  /**
   * `leaseId` goes with the request's usage event: the usage ledger settles the cost against that
   * lease with the usage row. `settle` gives the request's hold back to this instance's slice.
   */
  | { readonly _tag: "Leased"; readonly leaseId: string; readonly settle: (cost: bigint) => void }
  /** Too few requests for a lease to pay: hold a reservation of its own. */
  | { readonly _tag: "Direct" }
  | { readonly _tag: "Unbilled" }
  | { readonly _tag: "Refused"; readonly refusal: Refusal }

const second = 1000

/**
 * One generation of a key's lease row, as this instance sees it: `available` (free here) and
 * `held` (the worst cases of requests in flight). The row holds those two plus the costs of
 * requests settled here whose usage rows are not written yet; writing a usage row lowers the row
 * by its cost in the same transaction, and the slice forgot that cost when the request settled,
 * so neither side counts it twice. A row that expired is never written again under its id (a
 * late settlement of an earlier request would lower the new slice): the next generation starts.
 */
class Slice {
  available = 0n
  held = 0n
  /** A take wrote the row: later takes grow it, and flushes hand back from it and renew it. */
  written = false
  readonly id: string
  constructor(id: string) {
    this.id = id
  }

  consume(amount: bigint): void {
    this.available -= amount
    this.held += amount
  }

  /** The hold goes; what the cost did not use is free here again (the cost leaves with the usage row). */
  settle(amount: bigint, cost: bigint): void {
    this.held -= amount
    this.available += amount - cost
  }
}

/** One key's lease on this instance: its current slice, the recent admission rate, and the gate serialising its takes and flushes. */
class LocalLease {
  slice: Slice
  generation = 0
  /** Local time after which the row may have expired (not renewed in time): stop admitting from it. */
  validUntil = 0
  refilling = false
  lastAsk = 0n
  // Admissions in the current and previous second: the recent rate a slice is sized from.
  bucketAt = 0
  count = 0
  nano = 0n
  prevCount = 0
  prevNano = 0n
  readonly gate = Semaphore.makeUnsafe(1)
  readonly base: string
  readonly projectId: string
  readonly keyId: string
  constructor(base: string, projectId: string, keyId: string) {
    this.base = base
    this.projectId = projectId
    this.keyId = keyId
    this.slice = new Slice(`${base}:0`)
  }

  /** The row went (expired, or dropped empty): requests still in flight settle into the old slice, which nothing reads. */
  retire(): void {
    this.generation++
    this.slice = new Slice(`${this.base}:${this.generation}`)
    this.validUntil = 0
  }

  /** Moves the buckets on to `now`'s second (a quiet key's rate falls to zero). */
  roll(now: number): void {
    const bucket = now - (now % second)
    if (bucket <= this.bucketAt) return
    const adjacent = bucket - this.bucketAt === second
    this.prevCount = adjacent ? this.count : 0
    this.prevNano = adjacent ? this.nano : 0n
    this.count = 0
    this.nano = 0n
    this.bucketAt = bucket
  }

  note(amount: bigint, now: number): void {
    this.roll(now)
    this.count++
    this.nano += amount
    this.lastAsk = amount
  }

  rate(): number {
    return Math.max(this.count, this.prevCount)
  }

  /** What a slice should hold: the last second's (or this one's) admissions over the horizon. */
  want(horizonMs: number): bigint {
    const perSecond = this.nano > this.prevNano ? this.nano : this.prevNano
    return (perSecond * BigInt(horizonMs)) / BigInt(second)
  }
}

/**
 * The leases of one instance: admission from a local slice without a database round trip, takes
 * (one transaction each, serialised per key by `gate`), background refills, and the flush that
 * hands back and renews. See docs/ARCHITECTURE.md ("Leases").
 */
export class BillingLeases {
  private readonly leases = new Map<string, LocalLease>()
  private readonly store: LeaseStore
  private readonly options: LeaseOptions
  private readonly scope: Scope.Scope
  private closed = false
  leasedAdmissions = 0
  takes = 0
  flushFailures = 0

  constructor(store: LeaseStore, options: LeaseOptions, scope: Scope.Scope) {
    this.store = store
    this.options = options
    this.scope = scope
  }

  private lease(projectId: string, keyId: string): LocalLease {
    const name = `${projectId}\u0000${keyId}`
    let lease = this.leases.get(name)
    if (lease === undefined) {
      lease = new LocalLease(`lease:${this.options.instanceId}:${keyId}`, projectId, keyId)
      this.leases.set(name, lease)
    }
    return lease
  }

  private leased(lease: LocalLease, amount: bigint): LeaseAdmission {
    const slice = lease.slice
    slice.consume(amount)
    this.leasedAdmissions++
    let settled = false
    return {
      _tag: "Leased",
      leaseId: slice.id,
      settle: (cost) => {
        // Once: a second call would free the hold twice.
        if (settled) return
        settled = true
        slice.settle(amount, cost)
      }
    }
  }

  /**
   * Adds to the lease in one transaction; the caller holds `gate`. A row found expired ends its
   * generation and the take is made once more for a new one. A take that fails adds nothing
   * here even if it committed (its answer lost): the row then holds more than the instance
   * uses, until it is handed back or expires, never less.
   */
  private take(lease: LocalLease, want: bigint, least: bigint, now: number): Effect.Effect<Exclude<LeaseTakeOutcome, { _tag: "Gone" }>, SqlError.SqlError> {
    this.takes++
    const slice = lease.slice
    const input = { projectId: lease.projectId, keyId: lease.keyId, leaseId: slice.id, grow: slice.written, want, least, ttlMs: this.options.ttlMs, now }
    return Effect.flatMap(this.store.take(input), (outcome) => {
      if (outcome._tag === "Gone") {
        lease.retire()
        return this.take(lease, want, least, now)
      }
      if (outcome._tag === "Granted") {
        slice.written = true
        slice.available += outcome.granted
        lease.validUntil = now + this.validFor()
      }
      return Effect.succeed(outcome)
    })
  }

  private validFor(): number {
    return Math.floor((this.options.ttlMs * 3) / 4)
  }

  private refillInBackground(lease: LocalLease, now: number): Effect.Effect<void> {
    const want = lease.want(this.options.horizonMs)
    if (lease.refilling || lease.rate() < this.options.minRate || lease.slice.available * 2n >= want) return Effect.void
    lease.refilling = true
    const refill = lease.gate.withPermit(
      Effect.suspend(() =>
        this.closed || lease.slice.available * 2n >= want ? Effect.void : Effect.ignore(this.take(lease, want - lease.slice.available, lease.lastAsk, now))
      )
    ).pipe(Effect.ensuring(Effect.sync(() => (lease.refilling = false))))
    return Effect.asVoid(Effect.forkIn(refill, this.scope))
  }

  /**
   * The fast path, with no effect to run: admits from the key's slice when it covers `amount`
   * (starting a refill in the background when the slice runs low). undefined: `decide` does.
   */
  admitLocally(projectId: string, keyId: string, amount: bigint, now: number): LeaseAdmission | undefined {
    const lease = this.lease(projectId, keyId)
    lease.note(amount, now)
    if (lease.slice.available < amount || now >= lease.validUntil) return undefined
    const refill = this.refillInBackground(lease, now)
    if (refill !== Effect.void) Effect.runFork(refill)
    return this.leased(lease, amount)
  }

  /** Admits `amount` from the key's slice, taking or growing it first if it is short. */
  admit(projectId: string, keyId: string, amount: bigint, now: number): Effect.Effect<LeaseAdmission, SqlError.SqlError> {
    const local = this.admitLocally(projectId, keyId, amount, now)
    return local === undefined ? this.decide(projectId, keyId, amount, now) : Effect.succeed(local)
  }

  /** After `admitLocally` found the slice short: a hold of its own (a quiet key), or a take first. */
  decide(projectId: string, keyId: string, amount: bigint, now: number): Effect.Effect<LeaseAdmission, SqlError.SqlError> {
    const lease = this.lease(projectId, keyId)
    if (lease.rate() < this.options.minRate) return Effect.succeed({ _tag: "Direct" })
    return lease.gate.withPermit(
      Effect.suspend((): Effect.Effect<LeaseAdmission, SqlError.SqlError> => {
        // Another request may have grown the slice while this one waited.
        if (lease.slice.available >= amount && now < lease.validUntil) return Effect.succeed(this.leased(lease, amount))
        const free = now < lease.validUntil && lease.slice.available > 0n ? lease.slice.available : 0n
        return Effect.map(this.take(lease, lease.want(this.options.horizonMs), amount - free, now), (outcome): LeaseAdmission => {
          if (outcome._tag !== "Granted") return outcome
          return lease.slice.available >= amount ? this.leased(lease, amount) : { _tag: "Direct" }
        })
      })
    )
  }

  /**
   * Hands back what the recent rate no longer needs (all of it when the key went quiet) and
   * renews the rest. A flush that fails may still have committed (its answer lost with the
   * connection): what it handed back stays out of the slice, so the row never holds less than the
   * instance may admit from it; had it not committed, the row holds that much more until it
   * expires (it is not renewed once the instance holds nothing of it).
   */
  flush(now: number): Effect.Effect<void> {
    return Effect.forEach(this.leases.values(), (lease) => this.flushOne(lease, now, false), { discard: true })
  }

  /**
   * At shutdown, after the requests drained: hand everything back. What the usage ledger has not
   * written yet stays in the rows until it is (the ledger's last flush comes after this).
   */
  close(now: number): Effect.Effect<void> {
    this.closed = true
    return Effect.forEach(this.leases.values(), (lease) => this.flushOne(lease, now, true), { discard: true })
  }

  private flushOne(lease: LocalLease, now: number, closing: boolean): Effect.Effect<void> {
    return lease.gate.withPermit(
      Effect.suspend(() => {
        const slice = lease.slice
        if (!slice.written) return Effect.void
        lease.roll(now)
        const quiet = closing || lease.rate() < this.options.minRate || now >= lease.validUntil
        const keep = quiet ? 0n : 2n * lease.want(this.options.horizonMs)
        const giveBack = slice.available > keep ? slice.available - keep : 0n
        // Out of `available` before the write, so that no request is admitted from what is being handed back.
        slice.available -= giveBack
        // Nothing free here and nothing in flight: the row is no longer renewed, and goes once empty.
        const renew = slice.held > 0n || slice.available > 0n
        return this.store.flush({ leaseId: slice.id, giveBack, renew, ttlMs: this.options.ttlMs, now }).pipe(
          Effect.matchEffect({
            onSuccess: (outcome) =>
              Effect.sync(() => {
                if (outcome === "Renewed") lease.validUntil = now + this.validFor()
                else if (outcome === "Gone" || outcome === "Dropped") lease.retire()
              }),
            onFailure: (error) =>
              Effect.andThen(
                Effect.sync(() => {
                  this.flushFailures++
                }),
                Effect.logWarning("billing: a lease could not be handed back or renewed; tried again at the next flush", error)
              )
          })
        )
      })
    )
  }
}
