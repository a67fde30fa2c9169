import { describe, expect, it } from "@effect/vitest"
import { makeLimitVerdicts } from "../../../../src/Services/Files/Extraction/LimitVerdicts.ts"

const timeout = { kind: "timeout", reason: "the document took too long to read" } as const
const tooComplex = { kind: "too_complex", reason: "reading the document needs more memory" } as const

describe("verdicts of contents that overran a bound", () => {
  it("a content that timed out is refused at once until its verdict expires, then read again", () => {
    let now = 0
    const verdicts = makeLimitVerdicts({ maxEntries: 10, ttlMs: 60 * 60 * 1000, now: () => now })
    expect(verdicts.recall("xlsx:abc")).toBeUndefined()
    verdicts.remember("xlsx:abc", timeout)
    now = 60 * 60 * 1000 - 1
    expect(verdicts.recall("xlsx:abc")).toEqual(timeout)
    // Another reader of the same bytes, or other bytes, are not refused.
    expect(verdicts.recall("html:abc")).toBeUndefined()
    now = 60 * 60 * 1000
    expect(verdicts.recall("xlsx:abc")).toBeUndefined()
  })

  it("keeps at most maxEntries, forgetting the oldest; remembering again makes a verdict the newest", () => {
    const verdicts = makeLimitVerdicts({ maxEntries: 2, ttlMs: 1_000, now: () => 0 })
    verdicts.remember("a", timeout)
    verdicts.remember("b", tooComplex)
    verdicts.remember("a", timeout)
    verdicts.remember("c", timeout)
    expect(verdicts.recall("b")).toBeUndefined()
    expect(verdicts.recall("a")).toEqual(timeout)
    expect(verdicts.recall("c")).toEqual(timeout)
  })
})
