import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { ensureMonthlyPartitions } from "../../../src/Services/Usage/UsagePartitions.ts"

// The statements it would run, recorded instead of run: which partitions a batch asks for is
// decided before any SQL, and that decision is what is tested here.
const recordingSql = (statements: Array<string>) =>
  ({ unsafe: (text: string) => Effect.sync(() => void statements.push(text)) }) as unknown as SqlClient.SqlClient

const name = (year: number, month: number) => `usage_events_y${year}m${String(month + 1).padStart(2, "0")}`
/** Every partition a set of times needs: each one's month and the month after it. */
const expected = (timestamps: ReadonlyArray<number>) =>
  new Set(timestamps.flatMap((ts) => {
    const d = new Date(ts)
    return [0, 1].map((offset) => name(d.getUTCFullYear() + Math.floor((d.getUTCMonth() + offset) / 12), (d.getUTCMonth() + offset) % 12))
  }))

// Times from 2025 to 2028, sorted or not, many in one month as a batch usually is.
const Times = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: Date.UTC(2025, 0, 1), maximum: Date.UTC(2028, 11, 31) })))
  .check(Schema.isMinLength(1), Schema.isMaxLength(40))

describe("monthly usage partitions", () => {
  it.effect("a batch across a month's and a year's end asks for each month's partition and the next, once each", () =>
    Effect.gen(function* () {
      const statements: Array<string> = []
      const ensured = new Set<string>()
      const times = [Date.UTC(2026, 10, 30, 23, 59, 59, 999), Date.UTC(2026, 10, 3), Date.UTC(2026, 11, 1), Date.UTC(2026, 11, 31, 23, 0), Date.UTC(2027, 0, 1)]
      yield* ensureMonthlyPartitions(recordingSql(statements), ensured, times)
      expect([...ensured].sort()).toEqual([name(2026, 10), name(2026, 11), name(2027, 0), name(2027, 1)])
      expect(statements).toHaveLength(4)
      expect(statements).toContain(
        `CREATE TABLE IF NOT EXISTS ${name(2026, 11)} PARTITION OF usage_events FOR VALUES FROM ('2026-12-01T00:00:00.000Z') TO ('2027-01-01T00:00:00.000Z')`
      )
      // Known once: the next batch of the same months runs nothing.
      yield* ensureMonthlyPartitions(recordingSql(statements), ensured, times)
      expect(statements).toHaveLength(4)
    }))

  it.prop("any batch asks for exactly the partitions of its rows' months and the months after them", { times: Times }, ({ times }) =>
    Effect.runSync(Effect.gen(function* () {
      const ensured = new Set<string>()
      yield* ensureMonthlyPartitions(recordingSql([]), ensured, times)
      expect(ensured).toEqual(expected(times))
    })))
})
