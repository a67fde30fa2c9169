import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"

/** `usage_events_y2026m11` holds November 2026 (UTC). */
const partitionName = (year: number, month: number): string =>
  `usage_events_y${year}m${String(month + 1).padStart(2, "0")}`

const monthStart = (year: number, month: number): string => new Date(Date.UTC(year, month, 1)).toISOString()

/**
 * Creates the monthly partitions the given timestamps fall in, plus next month's, once per
 * process. Two instances racing on the same month is harmless: the loser sees it exists.
 * If rows for that month already sit in the default partition, creation fails and the rows
 * simply stay there; nothing is lost.
 */
export const ensureMonthlyPartitions = (
  sql: SqlClient.SqlClient,
  ensured: Set<string>,
  timestamps: ReadonlyArray<number>
) =>
  Effect.gen(function* () {
    const months = new Map<string, readonly [number, number]>()
    // A batch's rows are nearly always of one month: a row inside the last month seen costs two comparisons.
    let seenFrom = 0
    let seenTo = 0
    for (const ts of timestamps) {
      if (ts >= seenFrom && ts < seenTo) continue
      const d = new Date(ts)
      seenFrom = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
      seenTo = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
      for (const offset of [0, 1]) {
        const year = d.getUTCFullYear() + Math.floor((d.getUTCMonth() + offset) / 12)
        const month = (d.getUTCMonth() + offset) % 12
        months.set(partitionName(year, month), [year, month])
      }
    }
    for (const [name, [year, month]] of months) {
      if (ensured.has(name)) continue
      const from = monthStart(year, month)
      const to = monthStart(year + Math.floor((month + 1) / 12), (month + 1) % 12)
      yield* sql
        .unsafe(
          `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF usage_events FOR VALUES FROM ('${from}') TO ('${to}')`
        )
        .pipe(
          Effect.catchCause((cause) =>
            Effect.logDebug(`partition ${name} not created; rows stay in the default partition`, cause)
          )
        )
      ensured.add(name)
    }
  })

/** Drops monthly partitions that end before the retention horizon. */
export const pruneMonthlyPartitions = (sql: SqlClient.SqlClient, retentionDays: number) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = 'usage_events'`
    const horizon = Date.now() - retentionDays * 86_400_000
    for (const { name } of rows) {
      const match = /^usage_events_y(\d{4})m(\d{2})$/.exec(name)
      if (match === null) continue
      const year = Number(match[1])
      const month = Number(match[2]) - 1
      const end = Date.UTC(year + Math.floor((month + 1) / 12), (month + 1) % 12, 1)
      if (end <= horizon) {
        yield* sql.unsafe(`DROP TABLE IF EXISTS ${name}`)
        yield* Effect.logInfo(`dropped usage partition ${name} (older than ${retentionDays} days)`)
      }
    }
  })
