import * as NodePath from "node:path"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type { UsageEvent, UsageReport } from "../../Domain/UsageEvent.ts"
import { normaliseUsageEvent } from "../../Domain/UsageNormaliser.ts"
import { singleSession } from "../Billing/BillingStore.ts"
import { AppConfig } from "../Config/AppConfig.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { batchesOf, writeGroups } from "./UsageFlusher.ts"
import { LedgerCounters, type UsageLedgerStats } from "./UsageLedgerStats.ts"
import { pruneMonthlyPartitions } from "./UsagePartitions.ts"
import { usageReport } from "./UsageReport.ts"
import { readSpillFile, settleSpillFile, spillEvents, spillFiles } from "./UsageSpill.ts"
import { makeUsageWriter } from "./UsageWriter.ts"

export type { UsageLedgerStats } from "./UsageLedgerStats.ts"

/** While the database stays unreachable, one warning per this interval. */
const failureLogEveryMs = 60_000

/** How long shutdown waits for the last writes before spilling what is left to disk. */
const shutdownFlushTimeout = Duration.seconds(15)

/**
 * The usage log. `record` normalises the event (UsageNormaliser.ts) and appends it to memory, so
 * the response path never waits for the database; a background fiber writes batches every
 * `usage.flush_interval_ms` (UsageFlusher.ts: refused rows are split out to the dead-letter
 * table, an unreachable database keeps the events for the next flush, up to
 * `usage.max_buffered`). At shutdown what is left is written, or spilled to a file in
 * `usage.spill_directory` that the next start replays.
 */
export class UsageLedger extends Context.Service<
  UsageLedger,
  {
    readonly record: (event: UsageEvent) => Effect.Effect<void>
    /** Writes everything recorded so far (or keeps it, if the database is unreachable). */
    readonly flush: Effect.Effect<void>
    readonly pending: Effect.Effect<number>
    /** Queue depth and failure counts since start; exported by the metrics endpoint. */
    readonly stats: Effect.Effect<UsageLedgerStats>
    readonly report: (input: {
      readonly projectId: string
      readonly projectSeq: number
      readonly from: number
      readonly to: number
    }) => Effect.Effect<UsageReport>
  }
>()("gateway/UsageLedger") {
  static readonly layer = Layer.effect(
    UsageLedger,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const settings = (yield* GatewayConfigFile).config.usage
      const app = yield* AppConfig
      const spillDirectory = settings.spill_directory ?? NodePath.join(app.dataDir, "usage-spill")
      // Billed batches are transactions, which take turns on the embedded storage's one session.
      if (app.databaseUrl === undefined) singleSession(sql)
      // Opened by a billed event holding a reservation of its own: its settlement is written at
      // once (the hold counts until then), with whatever else is queued (one transaction for
      // every event that came while the previous one was being written).
      const wake = Latch.makeUnsafe(false)
      const writer = makeUsageWriter(sql)
      const counters = new LedgerCounters()
      // One writer at a time: the background flusher, an explicit flush, the replay, shutdown.
      const lock = Semaphore.makeUnsafe(1)
      let buffer: Array<UsageEvent> = []
      // The batches of the write under way that are not settled yet (see writeGroups).
      let inFlight: Array<ReadonlyArray<UsageEvent>> = []
      let shedSinceLog = 0
      let failingSince: number | undefined
      let lastFailureLog = 0

      const queued = () => buffer.length + inFlight.reduce((n, group) => n + group.length, 0)

      // Sheds at least 1% of the queue at a time, so a full queue is not copied on every record.
      const keep = (events: ReadonlyArray<UsageEvent>) => {
        buffer = events.length === 0 ? buffer : events.concat(buffer)
        const over = buffer.length - settings.max_buffered
        if (over > 0) {
          const shed = Math.min(buffer.length, Math.max(over, Math.ceil(settings.max_buffered / 100)))
          buffer = buffer.slice(shed)
          counters.dropped += shed
          shedSinceLog += shed
        }
      }

      const logShed = Effect.suspend(() => {
        const logs: Array<Effect.Effect<void>> = []
        if (shedSinceLog > 0) {
          logs.push(Effect.logError("usage queue full while the database is unreachable; oldest events dropped", {
            dropped: shedSinceLog,
            dropped_total: counters.dropped,
            queued: buffer.length
          }))
          shedSinceLog = 0
        }
        return Effect.all(logs, { discard: true })
      })

      const rejectedToDisk = (events: ReadonlyArray<UsageEvent>) =>
        events.length === 0
          ? Effect.void
          : spillEvents(spillDirectory, events, "rejected").pipe(
            Effect.tap((path) => Effect.sync(() => (counters.rejected += events.length)).pipe(
              Effect.andThen(Effect.logError("usage events kept on disk", { path, events: events.length }))
            )),
            Effect.catch((error) => Effect.logError("usage events lost", { events: events.length, error: error.message }))
          )

      /** Writes `groups`; what the database could not take for now goes back to the front of the queue. */
      const writeNow = (groups: Array<ReadonlyArray<UsageEvent>>) =>
        Effect.suspend(() => {
          inFlight = groups
          return writeGroups(writer, groups, counters)
        }).pipe(
          Effect.onExit(() => Effect.sync(() => {
            keep(inFlight.flat())
            inFlight = []
          })),
          Effect.flatMap((result) =>
            Effect.andThen(rejectedToDisk(result.rejected), Effect.sync(() => result.unavailable))
          )
        )

      const noteOutcome = (unavailable: string | undefined) =>
        Effect.suspend(() => {
          const now = Date.now()
          if (unavailable === undefined) {
            if (failingSince === undefined) return Effect.void
            const since = failingSince
            failingSince = undefined
            return Effect.logInfo("usage database reachable again", { unreachable_ms: now - since, queued: buffer.length })
          }
          counters.writeFailures++
          counters.lastFailure = unavailable
          failingSince ??= now
          if (now - lastFailureLog < failureLogEveryMs) return Effect.void
          lastFailureLog = now
          return Effect.logWarning("usage database unreachable; events and their settlements kept in memory and retried", {
            reason: unavailable,
            queued: buffer.length,
            settle_failures_total: counters.settleFailures,
            max_buffered: settings.max_buffered
          })
        })

      const flushUnlocked = Effect.suspend(() => {
        if (buffer.length === 0) return logShed
        const groups = batchesOf(buffer, settings.max_batch)
        buffer = []
        return writeNow(groups).pipe(Effect.flatMap(noteOutcome), Effect.andThen(logShed))
      })
      const flush = lock.withPermit(flushUnlocked)

      /** Spill files of an earlier run: written (idempotently) and removed; kept while the database is away. */
      const replay = Effect.gen(function* () {
        for (const path of spillFiles(spillDirectory)) {
          const file = yield* readSpillFile(path)
          const events = file.events.map(normaliseUsageEvent)
          const groups = batchesOf(events, settings.max_batch)
          const result = yield* lock.withPermit(
            writeGroups(writer, groups, counters).pipe(Effect.tap((r) => rejectedToDisk(r.rejected)))
          )
          if (result.unavailable !== undefined || groups.length > 0) {
            return yield* Effect.logWarning("usage spill replay postponed; the database is unreachable", { path })
          }
          counters.replayed += events.length
          yield* settleSpillFile(path, file.unreadable)
          yield* Effect.logInfo("usage spill file replayed", { path, events: events.length, unreadable_lines: file.unreadable })
        }
      }).pipe(Effect.catch((error) => Effect.logError("usage spill replay failed", { error: error.message })))

      const spillRest = Effect.suspend(() => {
        const rest = [...inFlight.flat(), ...buffer]
        if (rest.length === 0) return Effect.void
        inFlight = []
        buffer = []
        return spillEvents(spillDirectory, rest).pipe(
          Effect.flatMap((path) => {
            counters.spilled += rest.length
            return Effect.logWarning("usage events spilled to disk at shutdown; written on the next start", { path, events: rest.length })
          }),
          Effect.catch((error) => Effect.logError("usage events lost at shutdown", { events: rest.length, error: error.message }))
        )
      })

      yield* Effect.forkScoped(replay)
      const interval = Duration.millis(settings.flush_interval_ms)
      const flusher = yield* Effect.forkScoped(
        Effect.forever(
          Effect.race(wake.await, Effect.sleep(interval)).pipe(
            Effect.andThen(Effect.sync(() => wake.closeUnsafe())),
            Effect.andThen(flush),
            // Not straight back while the database is away: the events wait for the next interval.
            Effect.andThen(Effect.suspend(() => (failingSince === undefined ? Effect.void : Effect.sleep(interval))))
          )
        )
      )
      if (settings.retention_days > 0) {
        yield* Effect.forkScoped(
          pruneMonthlyPartitions(sql, settings.retention_days).pipe(
            Effect.catchCause((cause) => Effect.logWarning("usage retention failed", cause)),
            Effect.repeat(Schedule.spaced(Duration.hours(6)))
          )
        )
      }
      // Runs after the HTTP server has drained, because this layer was built before it. The
      // background flusher stops first (an interrupted write puts its batches back), then what
      // is left gets one bounded chance to be written before it goes to disk.
      yield* Effect.addFinalizer(() =>
        Fiber.interrupt(flusher).pipe(
          Effect.andThen(flushUnlocked.pipe(Effect.timeout(shutdownFlushTimeout), Effect.ignore)),
          Effect.andThen(spillRest)
        )
      )

      return UsageLedger.of({
        record: (event) =>
          Effect.sync(() => {
            const normal = normaliseUsageEvent(event)
            if (normal.raw !== undefined) counters.normalised++
            buffer.push(normal)
            if (buffer.length > settings.max_buffered) keep([])
            // A leased request waits for the regular flush: its hold is back in its instance's
            // slice already, and its lease keeps the cost counted until the row is written.
            if (normal.settlement !== undefined && normal.settlement.leaseId === undefined) wake.openUnsafe()
          }),
        flush,
        pending: Effect.sync(queued),
        stats: Effect.sync(() => counters.snapshot(queued())),
        report: Effect.fn("UsageLedger.report")(function* (input) {
          return yield* usageReport(sql, input)
        })
      })
    })
  )
}
