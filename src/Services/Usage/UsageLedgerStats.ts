/**
 * What the ledger has done since the process started, for operators and the metrics endpoint:
 * its queue depth and every way an event can leave the queue other than being written.
 */
export interface UsageLedgerStats {
  /** Events waiting in memory (including a batch being written). */
  readonly queued: number
  /** Rows written to `usage_events` (a replayed event already there counts once, when first written). */
  readonly written: number
  /** Events the database refused, kept in `usage_dead_letters`. */
  readonly deadLettered: number
  /** Events neither table would take, kept in a `rejected-*.jsonl` file of the spill directory. */
  readonly rejected: number
  /** Events shed because the queue was full while the database was unreachable. */
  readonly dropped: number
  /** Events whose names or figures had to be cleaned or bounded before they were queued. */
  readonly normalised: number
  /** Flushes that found the database unreachable (the events were kept for the next one). */
  readonly writeFailures: number
  /** Events written to spill files at shutdown, and read back from them at start-up. */
  readonly spilled: number
  readonly replayed: number
  /** Billed events whose settlement was written with their usage row (or dead letter). */
  readonly settled: number
  /** Writes of billed events that failed (the database away or a connection lost): retried with the events. */
  readonly settleFailures: number
  /** The last reason the database was unreachable, if it ever was. */
  readonly lastFailure: string | null
}

/** The mutable counters behind `UsageLedger.stats`; one per ledger. */
export class LedgerCounters {
  written = 0
  deadLettered = 0
  rejected = 0
  dropped = 0
  normalised = 0
  writeFailures = 0
  spilled = 0
  replayed = 0
  settled = 0
  settleFailures = 0
  lastFailure: string | null = null

  snapshot(queued: number): UsageLedgerStats {
    return {
      queued,
      written: this.written,
      deadLettered: this.deadLettered,
      rejected: this.rejected,
      dropped: this.dropped,
      normalised: this.normalised,
      writeFailures: this.writeFailures,
      spilled: this.spilled,
      replayed: this.replayed,
      settled: this.settled,
      settleFailures: this.settleFailures,
      lastFailure: this.lastFailure
    }
  }
}
