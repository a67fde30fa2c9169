import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { UsageEvent } from "../../../src/Domain/UsageEvent.ts"
import { usageBounds } from "../../../src/Domain/UsageBounds.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { type LedgerHarness, startLedgerHarness } from "../../support/LedgerHarness.ts"
import { usageEvent } from "../../support/UsageEvents.ts"

/**
 * The ledger against bad input and a database that refuses rows or goes away, on the storage of
 * this run (embedded, or Postgres when DATABASE_URL is set).
 */
interface Row {
  readonly request_id: string
  readonly requested_model: string | null
  readonly provider: string | null
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly latency_ms: number
  readonly cost_nano_usd: string
  readonly detail: unknown
}

let h: LedgerHarness
beforeAll(async () => {
  h = await startLedgerHarness()
})
afterAll(async () => {
  await h?.stop()
})

let counter = 0
const ids = (prefix: string, n: number) => Array.from({ length: n }, () => `req_${prefix}_${++counter}`)

const rowsOf = (requestIds: ReadonlyArray<string>) =>
  h.sql((sql) =>
    sql<Row>`SELECT e.request_id, m.name AS requested_model, p.name AS provider, e.prompt_tokens, e.completion_tokens,
        e.latency_ms, e.cost_nano_usd::text AS cost_nano_usd, e.detail
      FROM usage_events e LEFT JOIN usage_labels m ON m.id = e.requested_model LEFT JOIN usage_labels p ON p.id = e.provider
      WHERE e.request_id IN ${sql.in(requestIds)} ORDER BY e.request_id`
  )
const deadLettersOf = (requestIds: ReadonlyArray<string>) =>
  h.sql((sql) => sql<{ request_id: string; reason: string; event: string }>`SELECT request_id, reason, event FROM usage_dead_letters
    WHERE request_id IN ${sql.in(requestIds)} ORDER BY request_id`)
const detailOf = (row: Row | undefined) => (typeof row?.detail === "string" ? JSON.parse(row.detail) : row?.detail) as any

const recordAll = (ledger: UsageLedger["Service"], events: ReadonlyArray<UsageEvent>) =>
  Effect.forEach(events, (event) => ledger.record(event), { discard: true })

describe("usage ledger under poisoning input", () => {
  it("normalises each poisoning event and writes it with every other row of its batches", async () => {
    const ledger = await h.startLedger({ max_batch: 4 })
    const [a, b, nul, long, fractional, huge, nan, control, surrogate, c] = ids("poison", 10) as [string, ...Array<string>]
    const events = [
      usageEvent({ requestId: a }),
      usageEvent({ requestId: nul!, requestedModel: "gpt\u0000test" }),
      usageEvent({ requestId: long!, requestedModel: "x".repeat(4096) }),
      usageEvent({ requestId: b! }),
      usageEvent({ requestId: fractional!, promptTokens: 12.5 }),
      usageEvent({ requestId: huge!, completionTokens: 3e9 }),
      usageEvent({ requestId: nan!, latencyMs: Number.NaN, costNanoUsd: -5 }),
      usageEvent({ requestId: control!, provider: "open\u001b[31mai\u0007" }),
      usageEvent({ requestId: surrogate!, requestedModel: "half \ud83d of a pair" }),
      usageEvent({ requestId: c! })
    ]
    const stats = await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* recordAll(usage, events)
      yield* usage.flush
      return yield* usage.stats
    }))
    expect(stats).toMatchObject({ queued: 0, deadLettered: 0, rejected: 0, dropped: 0, normalised: 7 })

    const rows = new Map((await rowsOf(events.map((e) => e.requestId))).map((r) => [r.request_id, r]))
    expect(rows.size).toBe(events.length)
    expect(rows.get(nul!)?.requested_model).toBe("gpttest")
    expect(rows.get(long!)?.requested_model).toBe("x".repeat(usageBounds.maxNameLength))
    expect(detailOf(rows.get(long!)).raw).toEqual({ requested_model: { chars: 4096, control_chars: 0 } })
    expect(rows.get(fractional!)?.prompt_tokens).toBe(13)
    expect(detailOf(rows.get(fractional!)).raw).toEqual({ prompt_tokens: 12.5 })
    expect(rows.get(huge!)?.completion_tokens).toBe(usageBounds.maxTokens)
    expect(detailOf(rows.get(huge!)).raw).toEqual({ completion_tokens: 3e9 })
    expect(rows.get(nan!)).toMatchObject({ latency_ms: 0, cost_nano_usd: "0" })
    expect(detailOf(rows.get(nan!)).raw).toEqual({ latency_ms: "NaN", cost_nano_usd: -5 })
    expect(rows.get(control!)?.provider).toBe("open[31mai")
    expect(rows.get(surrogate!)?.requested_model).toBe("half \ufffd of a pair")
    expect(detailOf(rows.get(a!))).toBeNull()
    expect(await deadLettersOf(events.map((e) => e.requestId))).toEqual([])
  })

  it("sets a row the database refuses aside with the reason and writes every other row", async () => {
    await h.sql((sql) => sql`ALTER TABLE usage_events ADD CONSTRAINT test_refuses_poison CHECK (request_id NOT LIKE 'req_refused%')`)
    try {
      const ledger = await h.startLedger({ max_batch: 4 })
      const good = ids("fine", 9)
      const refused = ids("refused", 2)
      // Two refused rows in different batches of four, and good rows before, between and after them.
      const events = [...good.slice(0, 2), refused[0]!, ...good.slice(2, 6), refused[1]!, ...good.slice(6)].map((requestId) =>
        usageEvent({ requestId }))
      const stats = await ledger.runPromise(Effect.gen(function* () {
        const usage = yield* UsageLedger
        yield* recordAll(usage, events)
        yield* usage.flush
        return yield* usage.stats
      }))
      expect(stats).toMatchObject({ queued: 0, written: good.length, deadLettered: 2, writeFailures: 0 })
      expect((await rowsOf(events.map((e) => e.requestId))).map((r) => r.request_id)).toEqual([...good].sort())
      const dead = await deadLettersOf(refused)
      expect(dead.map((d) => d.request_id)).toEqual([...refused].sort())
      for (const letter of dead) {
        expect(letter.reason).toContain("test_refuses_poison")
        expect(letter.reason).toContain("SQLSTATE 23514")
        expect(JSON.parse(letter.event)).toMatchObject({ requestId: letter.request_id, promptTokens: 10 })
      }
      // The flusher goes on: nothing is retried, the next event is written.
      const [after] = ids("after", 1)
      await ledger.runPromise(Effect.gen(function* () {
        const usage = yield* UsageLedger
        yield* usage.record(usageEvent({ requestId: after! }))
        yield* usage.flush
      }))
      expect(await rowsOf([after!])).toHaveLength(1)
    } finally {
      await h.sql((sql) => sql`ALTER TABLE usage_events DROP CONSTRAINT test_refuses_poison`)
    }
  })

  it("keeps events while the database is unreachable and writes them once it is back", async () => {
    const ledger = await h.startLedger()
    const requestIds = ids("outage", 3)
    h.proxy.cut()
    const during = await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* recordAll(usage, requestIds.map((requestId) => usageEvent({ requestId })))
      yield* usage.flush
      return yield* usage.stats
    }))
    expect(during).toMatchObject({ queued: 3, deadLettered: 0, dropped: 0 })
    expect(during.writeFailures).toBeGreaterThanOrEqual(1)
    expect(during.lastFailure).not.toBeNull()
    h.proxy.restore()
    const after = await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* usage.flush
      return yield* usage.stats
    }))
    expect(after).toMatchObject({ queued: 0, written: 3, deadLettered: 0 })
    expect(await rowsOf(requestIds)).toHaveLength(3)
  })

  it("bounds the queue while the database is away: the oldest are shed and counted", async () => {
    const ledger = await h.startLedger({ max_buffered: 5 })
    const requestIds = ids("shed", 8)
    h.proxy.cut()
    const during = await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* recordAll(usage, requestIds.map((requestId) => usageEvent({ requestId })))
      yield* usage.flush
      return yield* usage.stats
    }))
    expect(during).toMatchObject({ queued: 5, dropped: 3 })
    h.proxy.restore()
    await ledger.runPromise(Effect.gen(function* () {
      yield* (yield* UsageLedger).flush
    }))
    expect((await rowsOf(requestIds)).map((r) => r.request_id)).toEqual(requestIds.slice(3).sort())
  })

  it("reports cost summed as integers: 0.1 + 0.2 dollars is 0.3", async () => {
    const ledger = await h.startLedger()
    const projectSeq = 4242
    const [x, y] = ids("cost", 2)
    const report = await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* usage.record(usageEvent({ requestId: x!, projectSeq, costNanoUsd: 100_000_000 }))
      yield* usage.record(usageEvent({ requestId: y!, projectSeq, costNanoUsd: 200_000_000 }))
      yield* usage.flush
      const at = usageEvent().occurredAt / 1000
      return yield* usage.report({ projectId: "proj_cost", projectSeq, from: at - 60, to: at + 60 })
    }))
    expect(report.totals).toMatchObject({ requests: 2, cost_usd: 0.3, cost_nano_usd: "300000000" })
  })
})
