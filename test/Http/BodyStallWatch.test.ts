import type { IncomingMessage } from "node:http"
import { describe, expect, it, vi } from "vitest"
import { useFakeTimersInBlock } from "../support/FakeTimers.ts"
import { watchBodyStall } from "../../src/Http/BodyStallWatch.ts"

// The watcher reads only the message's `complete` flag and its socket's byte count, and keeps
// time with `setInterval` and `Date.now`: a message of those parts and fake timers make every
// case exact, whatever the machine's load. One fake clock for the file: the sweep's timer is
// shared by every watch, as it is in the server.
const message = (complete = false) => {
  const socket = { bytesRead: 0 }
  return { socket, source: { complete, socket } as unknown as IncomingMessage }
}

describe("body stall watch", () => {
  useFakeTimersInBlock()

  it("a body that sends nothing fires once, never before its stall time and within a quarter after it", () => {
    const { source } = message()
    const onStall = vi.fn()
    watchBodyStall(source, 1000, onStall)
    vi.advanceTimersByTime(999)
    expect(onStall).not.toHaveBeenCalled()
    vi.advanceTimersByTime(250)
    expect(onStall).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(10_000)
    expect(onStall).toHaveBeenCalledTimes(1)
  })

  it("bytes arriving on the connection keep the body alive; the stall counts from the last of them", () => {
    const { socket, source } = message()
    const onStall = vi.fn()
    watchBodyStall(source, 1000, onStall)
    for (let i = 0; i < 10; i++) {
      socket.bytesRead += 100
      vi.advanceTimersByTime(500)
    }
    expect(onStall).not.toHaveBeenCalled()
    // The last bytes came 500 ms ago; the sweep saw them at most a quarter of the stall later,
    // and the stall counts from then.
    vi.advanceTimersByTime(499)
    expect(onStall).not.toHaveBeenCalled()
    vi.advanceTimersByTime(251)
    expect(onStall).toHaveBeenCalledTimes(1)
  })

  it("a stopped watch never fires", () => {
    const { source } = message()
    const onStall = vi.fn()
    const stop = watchBodyStall(source, 1000, onStall)
    vi.advanceTimersByTime(500)
    stop()
    vi.advanceTimersByTime(10_000)
    expect(onStall).not.toHaveBeenCalled()
  })

  it("a body already complete is not watched", () => {
    const { source } = message(true)
    const onStall = vi.fn()
    watchBodyStall(source, 1000, onStall)
    vi.advanceTimersByTime(10_000)
    expect(onStall).not.toHaveBeenCalled()
  })

  it("watches of different stall times each fire at their own, the shorter one sweeping finer", () => {
    const long = vi.fn()
    const short = vi.fn()
    watchBodyStall(message().source, 8000, long)
    watchBodyStall(message().source, 200, short)
    vi.advanceTimersByTime(199)
    expect(short).not.toHaveBeenCalled()
    vi.advanceTimersByTime(60)
    expect(short).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(7700)
    expect(long).not.toHaveBeenCalled()
    vi.advanceTimersByTime(2100)
    expect(long).toHaveBeenCalledTimes(1)
  })
})
