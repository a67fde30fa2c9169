import { describe, expect, it } from "@effect/vitest"
import { streamFrames } from "../../bench/FakeUpstream.ts"
import { FirstContent } from "../../bench/Load.ts"

const text = (frames: ReadonlyArray<Buffer>) => Buffer.concat(frames).toString("latin1")

/** The read at which `FirstContent` first reports content, or -1. */
const firstSeenAt = (reads: ReadonlyArray<string>): number => {
  const content = new FirstContent()
  return reads.findIndex((read) => content.seen(read))
}

describe("FirstContent", () => {
  it("does not count the role chunk's empty content, and counts the first content chunk", () => {
    expect(firstSeenAt([text(streamFrames.slice(0, 1)), text(streamFrames.slice(1, 2))])).toBe(1)
  })

  it("finds content wherever a read cuts the stream", () => {
    const body = text(streamFrames.slice(0, 2))
    const contentAt = body.indexOf('"content":"w')
    for (let cut = 1; cut < body.length; cut++) {
      const reads = [body.slice(0, cut), body.slice(cut)]
      // Seen in the first read only when that read already holds the marker and its first character.
      expect(firstSeenAt(reads)).toBe(cut > contentAt + '"content":"'.length ? 0 : 1)
    }
  })

  it("counts content that opens with an escaped character, and never counts a stream without content", () => {
    expect(firstSeenAt(['data: {"choices":[{"delta":{"content":"\\"quoted\\""}}]}\n\n'])).toBe(0)
    expect(firstSeenAt([text([streamFrames[0]!, ...streamFrames.slice(-3)])])).toBe(-1)
  })

  it("starts afresh for the next response", () => {
    const content = new FirstContent()
    expect(content.seen('data: {"delta":{"content":"')).toBe(false)
    content.reset()
    expect(content.seen('x"}}\n\n')).toBe(false)
  })
})
