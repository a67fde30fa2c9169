import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as SqlError from "effect/sql/SqlError"
import type { UsageEvent } from "../../Domain/UsageEvent.ts"
import type { LedgerCounters } from "./UsageLedgerStats.ts"
import type { UsageWriter } from "./UsageWriter.ts"

/**
 * Why a write failed: the database could not be reached or was too busy (keep the events and try
 * again later), or it refused these rows (split the batch and set the refused row aside).
 */
export type WriteProblem = { readonly unavailable: boolean; readonly reason: string }

// SQLSTATE classes that say nothing about the rows: connection (08), resources (53), operator
// intervention such as a shutdown (57), system (58), transaction rollback (40), lock (55) and
// internal errors (XX).
const unavailableClasses = new Set(["08", "53", "57", "58", "40", "55", "XX"])

const sqlStateOf = (error: SqlError.SqlError): string | undefined => {
  const cause = error.reason.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause)) return undefined
  return typeof cause.code === "string" && /^[0-9A-Z]{5}$/.test(cause.code) ? cause.code : undefined
}

const describe = (error: SqlError.SqlError, code: string | undefined): string => {
  const cause = error.reason.cause
  const text = cause instanceof Error && cause.message !== "" ? cause.message : error.message
  return code === undefined ? text : `${text} (SQLSTATE ${code})`
}

/** Classified by the driver's error reason and the SQLSTATE class, never by message text. */
export const classifyWriteFailure = (cause: Cause.Cause<unknown>): WriteProblem => {
  if (Cause.hasInterrupts(cause)) return { unavailable: true, reason: "interrupted" }
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error) && SqlError.isSqlError(error.value)) {
    const code = sqlStateOf(error.value)
    const reason = describe(error.value, code)
    switch (error.value.reason._tag) {
      case "ConnectionError":
      case "AuthenticationError":
      case "AuthorizationError":
      case "DeadlockError":
      case "SerializationError":
      case "LockTimeoutError":
      case "StatementTimeoutError":
        return { unavailable: true, reason }
    }
    // No SQLSTATE at all: the failure happened before the server judged the rows.
    return { unavailable: code === undefined || unavailableClasses.has(code.slice(0, 2)), reason }
  }
  // A defect while preparing rows (a value that cannot be serialised) belongs to those rows.
  const defect = Cause.squash(cause)
  return { unavailable: false, reason: defect instanceof Error ? defect.message : String(defect) }
}

export interface WriteResult {
  /** Set when the database was unreachable: the groups left in the queue were not written. */
  readonly unavailable: string | undefined
  /** Events neither `usage_events` nor `usage_dead_letters` would take. */
  readonly rejected: ReadonlyArray<UsageEvent>
}

/**
 * Writes `groups` (batches of at most `usage.max_batch`) front to back, removing each group
 * from the array once it is settled, so whatever is still in it when this stops (the database
 * went away, the fiber was interrupted) is exactly what was not written. A batch the database
 * refuses is split in halves until the refused rows stand alone (k bad rows among n cost about
 * 2k·log2(n) statements); each goes to the dead-letter table with the database's reason and
 * every other row is written. A poisoned batch is therefore never retried as a whole, and
 * never blocks the rows behind it.
 */
export const writeGroups = (
  writer: UsageWriter,
  groups: Array<ReadonlyArray<UsageEvent>>,
  counters: LedgerCounters
): Effect.Effect<WriteResult> =>
  Effect.gen(function* () {
    const rejected: Array<UsageEvent> = []
    while (groups.length > 0) {
      const group = groups[0]!
      const written = yield* Effect.exit(writer.insert(group))
      if (Exit.isSuccess(written)) {
        groups.shift()
        counters.written += group.length
        counters.settled += billedIn(group)
        continue
      }
      const problem = classifyWriteFailure(written.cause)
      if (problem.unavailable) {
        // The settlements stay queued with their events and are written with them later.
        counters.settleFailures += billedIn(group)
        return { unavailable: problem.reason, rejected }
      }
      if (group.length > 1) {
        const middle = Math.ceil(group.length / 2)
        groups.splice(0, 1, group.slice(0, middle), group.slice(middle))
        continue
      }
      const event = group[0]!
      const kept = yield* Effect.exit(writer.deadLetter(event, problem.reason))
      if (Exit.isFailure(kept)) {
        const again = classifyWriteFailure(kept.cause)
        if (again.unavailable) return { unavailable: again.reason, rejected }
        groups.shift()
        rejected.push(event)
        yield* Effect.logError("usage event refused by usage_events and usage_dead_letters", {
          request_id: event.requestId,
          reason: problem.reason,
          dead_letter_reason: again.reason
        })
        continue
      }
      groups.shift()
      counters.deadLettered++
      counters.settled += billedIn(group)
      yield* Effect.logWarning("usage event refused by the database; kept in usage_dead_letters", {
        request_id: event.requestId,
        reason: problem.reason
      })
    }
    return { unavailable: undefined, rejected }
  })

const billedIn = (events: ReadonlyArray<UsageEvent>): number => {
  let n = 0
  for (const e of events) if (e.settlement !== undefined) n++
  return n
}

/** `events` as batches of at most `size`. */
export const batchesOf = (events: ReadonlyArray<UsageEvent>, size: number): Array<ReadonlyArray<UsageEvent>> => {
  const out: Array<ReadonlyArray<UsageEvent>> = []
  for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size))
  return out
}
