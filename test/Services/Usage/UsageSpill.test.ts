import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { type LedgerHarness, startLedgerHarness } from "../../support/LedgerHarness.ts"
import { usageEvent } from "../../support/UsageEvents.ts"

/**
 * Shutdown with the database unreachable spills the queue to disk; the next start writes it,
 * exactly once even if the same spill is replayed again (a crash between write and delete).
 */
let h: LedgerHarness
beforeAll(async () => {
  h = await startLedgerHarness()
})
afterAll(async () => {
  await h?.stop()
})

const spillFilesIn = (directory: string) => readdirSync(directory).filter((name) => name.endsWith(".jsonl"))

const countOf = (prefix: string) =>
  h.sql((sql) => sql<{ n: number; tokens: number }>`SELECT count(*)::int AS n, coalesce(sum(prompt_tokens), 0)::int AS tokens
    FROM usage_events WHERE request_id LIKE ${`${prefix}%`}`).then((rows) => rows[0]!)

const waitFor = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error("condition not reached in 5 s")
}

describe("usage ledger shutdown spill and replay", () => {
  it("writes what it holds at shutdown when the database is there", async () => {
    const ledger = await h.startLedger()
    await ledger.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      yield* usage.record(usageEvent({ requestId: "req_held_1" }))
      yield* usage.record(usageEvent({ requestId: "req_held_2" }))
    }))
    await ledger.dispose()
    expect(await countOf("req_held_")).toMatchObject({ n: 2 })
    expect(spillFilesIn(h.spillDirectory)).toEqual([])
  })

  it("spills to disk when the database is gone, and the next start writes each event once", async () => {
    const first = await h.startLedger()
    const events = Array.from({ length: 5 }, (_, i) => usageEvent({ requestId: `req_spilled_${i}`, promptTokens: 100 + i }))
    h.proxy.cut()
    await first.runPromise(Effect.gen(function* () {
      const usage = yield* UsageLedger
      for (const event of events) yield* usage.record(event)
    }))
    await first.dispose()
    const [file] = spillFilesIn(h.spillDirectory)
    expect(file).toMatch(/^usage-.*\.jsonl$/)
    const path = NodePath.join(h.spillDirectory, file!)
    const spilled = readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line).requestId)
    expect(spilled).toEqual(events.map((e) => e.requestId))
    expect(await countOf("req_spilled_")).toMatchObject({ n: 0 })

    // A copy stands for a crash after the replay wrote the rows but before it removed the file.
    const copy = NodePath.join(h.spillDirectory, "..", `${NodePath.basename(h.spillDirectory)}-copy.jsonl`)
    copyFileSync(path, copy)
    h.proxy.restore()
    const second = await h.startLedger()
    await waitFor(async () => !existsSync(path))
    expect(await countOf("req_spilled_")).toEqual({ n: 5, tokens: 510 })
    expect(await second.runPromise(Effect.gen(function* () {
      return yield* (yield* UsageLedger).stats
    }))).toMatchObject({ replayed: 5 })

    copyFileSync(copy, path)
    await h.startLedger()
    await waitFor(async () => !existsSync(path))
    expect(await countOf("req_spilled_")).toEqual({ n: 5, tokens: 510 })
  })
})
