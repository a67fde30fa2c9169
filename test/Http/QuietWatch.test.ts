import { describe, expect, it, vi } from "vitest"
import { useFakeTimersInBlock } from "../support/FakeTimers.ts"
import { watchQuiet } from "../../src/Http/QuietWatch.ts"

// The sweep keeps time with `setInterval` and `Date.now`: fake timers make every case exact. Its
// users' own rules are tested with them (BodyStallWatch, IdleConnections); here, the mechanism.
describe("quiet watch", () => {
  useFakeTimersInBlock()

  it("watches of any quiet times share one timer, which stops with the last watch", () => {
    const before = vi.getTimerCount()
    const stopLong = watchQuiet(() => 0, 60_000, vi.fn())
    const stopShort = watchQuiet(() => 0, 400, vi.fn())
    expect(vi.getTimerCount()).toBe(before + 1)
    stopShort()
    expect(vi.getTimerCount()).toBe(before + 1)
    stopLong()
    expect(vi.getTimerCount()).toBe(before)
  })

  it("a busy watch is never quiet; its quiet time counts from the last sweep that found it busy", () => {
    let busy = true
    const onQuiet = vi.fn()
    watchQuiet(() => (busy ? "busy" : 7), 1000, onQuiet)
    vi.advanceTimersByTime(30_000)
    expect(onQuiet).not.toHaveBeenCalled()
    busy = false
    vi.advanceTimersByTime(999)
    expect(onQuiet).not.toHaveBeenCalled()
    vi.advanceTimersByTime(500)
    expect(onQuiet).toHaveBeenCalledTimes(1)
    expect(vi.getTimerCount()).toBe(0)
  })
})
