import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import type * as SqlError from "effect/sql/SqlError"
import type { Refusal } from "./BillingDecision.ts"
import type { LeaseSettlement, LeaseStore } from "./LeaseStore.ts"

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
  | { readonly _tag: "Leased"; readonly settle: (cost: bigint, at: number) => void }
  /** Too few requests for a lease to pay: hold a reservation of its own. */
  | { readonly _tag: "Direct" }
  | { readonly _tag: "Unbilled" }
  | { readonly _tag: "Refused"; readonly refusal: Refusal }

const second = 1000

/**
 * One key's slice on this instance. `granted` is the lease row's amount in the database, and
 * always `available + held + pending` (what is free here, what requests in flight hold, what is
 * settled here and not yet written): the database subtracts all of it from everyone's room.
 */
class LocalLease {
  available = 0n
  held = 0n
  granted = 0n
  pending: Array<LeaseSettlement> = []
  pendingSum = 0n
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
  readonly id: string
  readonly projectId: string
  readonly keyId: string
  constructor(id: string, projectId: string, keyId: string) {
    this.id = id
    this.projectId = projectId
    this.keyId = keyId
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

  consume(amount: bigint): void {
    this.available -= amount
    this.held += amount
  }

  settle(requestId: string, amount: bigint, cost: bigint, at: number): void {
    this.held -= amount
    this.available += amount - cost
    if (cost <= 0n) return
    this.pending.push({ requestId, keyId: this.keyId, cost, at })
    this.pendingSum += cost
  }
}

/**
 * The leases of one instance: admission from a local slice without a database round trip, takes
 * (one transaction each, serialised per key by `gate`), background refills, and the flush that
 * settles, hands back and renews. See docs/ARCHITECTURE.md ("Leases").
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

  private leased(lease: LocalLease, requestId: string, amount: bigint): LeaseAdmission {
    lease.consume(amount)
    this.leasedAdmissions++
    return { _tag: "Leased", settle: (cost, at) => lease.settle(requestId, amount, cost, at) }
  }

  /** Adds to the lease in one transaction; the caller holds `gate`. */
  private take(lease: LocalLease, want: bigint, least: bigint, now: number) {
    this.takes++
    return Effect.map(
      this.store.take({ projectId: lease.projectId, keyId: lease.keyId, leaseId: lease.id, want, least, ttlMs: this.options.ttlMs, now }),
      (outcome) => {
        if (outcome._tag === "Granted") {
          // The row's own total: if it had expired (dropped by whoever decided next, what it held
          // free for everyone again), requests in flight and unwritten settlements are no longer
          // covered and what is free here shrinks by them.
          lease.granted = outcome.total
          lease.available = outcome.total - lease.held - lease.pendingSum
          lease.validUntil = now + this.validFor()
        }
        return outcome
      }
    )
  }

  private validFor(): number {
    return Math.floor((this.options.ttlMs * 3) / 4)
  }

  private refillInBackground(lease: LocalLease, now: number): Effect.Effect<void> {
    const want = lease.want(this.options.horizonMs)
    if (lease.refilling || lease.rate() < this.options.minRate || lease.available * 2n >= want) return Effect.void
    lease.refilling = true
    const refill = lease.gate.withPermit(
      Effect.suspend(() => (this.closed || lease.available * 2n >= want ? Effect.void : Effect.ignore(this.take(lease, want - lease.available, lease.lastAsk, now))))
    ).pipe(Effect.ensuring(Effect.sync(() => (lease.refilling = false))))
    return Effect.asVoid(Effect.forkIn(refill, this.scope))
  }

  /**
   * The fast path, with no effect to run: admits from the key's slice when it covers `amount`
   * (starting a refill in the background when the slice runs low). undefined: `decide` does.
   */
  admitLocally(projectId: string, keyId: string, amount: bigint, requestId: string, now: number): LeaseAdmission | undefined {
    const lease = this.lease(projectId, keyId)
    lease.note(amount, now)
    if (lease.available < amount || now >= lease.validUntil) return undefined
    const refill = this.refillInBackground(lease, now)
    if (refill !== Effect.void) Effect.runFork(refill)
    return this.leased(lease, requestId, amount)
  }

  /** Admits `amount` from the key's slice, taking or growing it first if it is short. */
  admit(projectId: string, keyId: string, amount: bigint, requestId: string, now: number): Effect.Effect<LeaseAdmission, SqlError.SqlError> {
    const local = this.admitLocally(projectId, keyId, amount, requestId, now)
    return local === undefined ? this.decide(projectId, keyId, amount, requestId, now) : Effect.succeed(local)
  }

  /** After `admitLocally` found the slice short: a hold of its own (a quiet key), or a take first. */
  decide(projectId: string, keyId: string, amount: bigint, requestId: string, now: number): Effect.Effect<LeaseAdmission, SqlError.SqlError> {
    const lease = this.lease(projectId, keyId)
    if (lease.rate() < this.options.minRate) return Effect.succeed({ _tag: "Direct" })
    return lease.gate.withPermit(
      Effect.suspend((): Effect.Effect<LeaseAdmission, SqlError.SqlError> => {
        // Another request may have grown the slice while this one waited.
        if (lease.available >= amount && now < lease.validUntil) return Effect.succeed(this.leased(lease, requestId, amount))
        const free = now < lease.validUntil && lease.available > 0n ? lease.available : 0n
        return Effect.map(this.take(lease, lease.want(this.options.horizonMs), amount - free, now), (outcome): LeaseAdmission => {
          if (outcome._tag !== "Granted") return outcome
          return lease.available >= amount ? this.leased(lease, requestId, amount) : { _tag: "Direct" }
        })
      })
    )
  }

  /**
   * Writes every lease's settled costs, hands back what the recent rate no longer needs (all of
   * it when the key went quiet) and renews the rest. A batch that fails stays for the next flush.
   */
  flush(now: number): Effect.Effect<void> {
    return Effect.forEach(this.leases.values(), (lease) => this.flushOne(lease, now, false), { discard: true })
  }

  /** At shutdown, after the requests drained: settle and hand everything back. */
  close(now: number): Effect.Effect<void> {
    this.closed = true
    return Effect.forEach(this.leases.values(), (lease) => this.flushOne(lease, now, true), { discard: true })
  }

  private flushOne(lease: LocalLease, now: number, closing: boolean): Effect.Effect<void> {
    return lease.gate.withPermit(
      Effect.suspend(() => {
        if (lease.granted === 0n && lease.pending.length === 0) return Effect.void
        lease.roll(now)
        const quiet = closing || lease.rate() < this.options.minRate || now >= lease.validUntil
        const keep = quiet ? 0n : 2n * lease.want(this.options.horizonMs)
        const giveBack = lease.available > keep ? lease.available - keep : 0n
        const batch = lease.pending
        const settled = lease.pendingSum
        lease.pending = []
        lease.pendingSum = 0n
        return this.store.flush({ projectId: lease.projectId, leaseId: lease.id, settlements: batch, giveBack, ttlMs: this.options.ttlMs, now }).pipe(
          Effect.matchEffect({
            onSuccess: () => {
              lease.available -= giveBack
              lease.granted -= settled + giveBack
              if (lease.granted > 0n) lease.validUntil = now + this.validFor()
              // Nothing left in it: the row goes (it would expire on its own otherwise).
              return closing && lease.granted === 0n ? Effect.ignore(this.store.drop(lease.id)) : Effect.void
            },
            onFailure: (error) =>
              Effect.andThen(
                Effect.sync(() => {
                  this.flushFailures++
                  lease.pending = batch.concat(lease.pending)
                  lease.pendingSum += settled
                }),
                Effect.logWarning("billing: a lease's settlements could not be written; kept for the next flush", error)
              )
          })
        )
      })
    )
  }
}
