import { Schema } from "effect"
import type { Dispatcher } from "undici"
import { describe, expect, it, vi } from "@effect/vitest"
import { timeoutFailure } from "../../src/Providers/ProviderErrors.ts"
import { type ExchangePhase, highWaterBytes, UpstreamExchange } from "../../src/Providers/UpstreamExchange.ts"
import type { Deadline } from "../../src/Streams/Deadline.ts"

/**
 * A model-based test of the upstream exchange: random sequences of what undici reports (heads,
 * chunks of any size, the end, connection errors), what its reader does (wait, take, release,
 * abort) and time passing, against a reference model written from the transition table in
 * UpstreamExchange.ts with due times instead of timers. After every step the phase, the failure,
 * the socket's pause and abort, the bytes taken and the wake-ups must agree. Time and microtasks are
 * faked, so a run is deterministic and a failure shrinks to a short sequence.
 */

const Ms = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 60 }))
type Command =
  | { readonly _tag: "Head"; readonly status: number }
  | { readonly _tag: "Chunk"; readonly size: number }
  | { readonly _tag: "End" | "ConnectionError" | "Flush" | "WaitHead" | "Read" | "Take" | "Release" | "Abort" }
  | { readonly _tag: "Advance"; readonly ms: number }

/**
 * One step, drawn with the weights of a real exchange (mostly chunks, time and reads) so that runs
 * get far enough to pause, go idle and drain before a timer or an error settles them.
 */
const Step = Schema.Struct({
  kind: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 99 })),
  // Sizes around the high-water mark, so pauses happen.
  size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: highWaterBytes / 2 + 1000 })),
  ms: Ms
})
const commandOf = ({ kind, size, ms }: typeof Step.Type): Command => {
  if (kind < 30) return { _tag: "Chunk", size }
  if (kind < 50) return { _tag: "Advance", ms }
  if (kind < 62) return { _tag: "Flush" }
  if (kind < 72) return { _tag: "Take" }
  if (kind < 80) return { _tag: "Read" }
  if (kind < 88) return { _tag: "Head", status: [200, 429, 500][kind % 3]! }
  if (kind < 91) return { _tag: "WaitHead" }
  if (kind < 94) return { _tag: "End" }
  if (kind < 96) return { _tag: "Release" }
  if (kind < 98) return { _tag: "Abort" }
  return { _tag: "ConnectionError" }
}

const Setup = Schema.Struct({
  streamed: Schema.Boolean,
  firstByteMs: Schema.Int.check(Schema.isBetween({ minimum: 20, maximum: 200 })),
  idleMs: Schema.Int.check(Schema.isBetween({ minimum: 20, maximum: 200 })),
  totalMs: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 2000 })),
  /** The routing deadline, that many ms after the start, if any. */
  deadlineMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2000 })))
})
type Setup = typeof Setup.Type

const drainMs = 30

/** What undici's controller was asked to do. */
class Controller {
  aborted = false
  paused = false
  reason = null
  abort() {
    this.aborted = true
  }
  pause() {
    this.paused = true
  }
  resume() {
    this.paused = false
  }
}

type Timer = "first-byte" | "body" | "idle" | "drain" | "total"

/** The reference: the transition table, with the due time of each timer instead of the timer. */
class Model {
  now = 0
  phase: ExchangePhase = "awaiting-head"
  status = 0
  buffered: Array<number> = []
  socketPaused = false
  aborted = false
  /** The messages the failure may have (several when timers fall due together). */
  failure: ReadonlyArray<string> | undefined
  heads = 0
  /** What the reader took at each wake-up, as (size, id) pairs. */
  reads: Array<Array<number>> = []
  waiting: "head" | "reader" | undefined
  wakeQueued = false
  readonly due = new Map<Timer, number>()
  private readonly setup: Setup

  constructor(setup: Setup) {
    this.setup = setup
    if (setup.firstByteMs < setup.totalMs) this.due.set("first-byte", setup.firstByteMs)
    this.due.set("total", setup.deadlineMs === undefined ? setup.totalMs : Math.min(setup.totalMs, setup.deadlineMs))
  }

  get settled() {
    return this.phase === "ended" || this.phase === "failed" || this.phase === "aborted"
  }

  messageOf(timer: Timer): string {
    const { firstByteMs, idleMs, totalMs, deadlineMs, streamed } = this.setup
    switch (timer) {
      case "first-byte":
        return `no response within ${firstByteMs} ms`
      case "body":
        return `no data within ${firstByteMs} ms`
      case "idle":
        return `the stream was silent for ${idleMs} ms`
      case "drain":
        return ""
      case "total":
        return deadlineMs !== undefined && deadlineMs < totalMs
          ? "the request's routing deadline passed"
          : `the ${streamed && this.status !== 0 ? "stream" : "call"} took longer than ${totalMs} ms`
    }
  }

  notify() {
    if (this.waiting !== undefined) this.wakeQueued = true
  }

  flush() {
    if (!this.wakeQueued) return
    this.wakeQueued = false
    const waiting = this.waiting
    this.waiting = undefined
    if (waiting === "head") this.heads++
    else if (waiting === "reader") {
      // Like the body stream's reader: take what is there, and wait again while the exchange lives.
      this.reads.push(this.take().flatMap((id) => [this.sizes.get(id)!, id % 256]))
      if (!this.settled && this.phase !== "draining") this.waiting = "reader"
    }
  }

  settle(phase: "failed" | "aborted", failure: ReadonlyArray<string> | undefined) {
    this.phase = phase
    this.failure = failure
    this.due.clear()
    this.aborted = true
    this.notify()
  }

  advance(ms: number) {
    this.flush()
    const until = this.now + ms
    for (;;) {
      if (this.settled || this.due.size === 0) break
      const next = Math.min(...this.due.values())
      if (next > until) break
      this.now = next
      const firing = [...this.due].filter(([, at]) => at === next).map(([timer]) => timer)
      if (firing.includes("drain") && firing.length === 1) this.settle("aborted", undefined)
      else this.settle("failed", firing.filter((t) => t !== "drain").map((t) => this.messageOf(t)))
      this.flush()
    }
    this.now = until
  }

  head(status: number) {
    if (this.phase !== "awaiting-head") return
    this.status = status
    this.due.delete("first-byte")
    if (this.setup.streamed) {
      this.phase = "awaiting-body"
      this.due.set("body", this.now + Math.max(1, this.setup.firstByteMs - this.now))
    } else this.phase = "receiving"
    this.notify()
  }

  chunk(id: number) {
    if (this.phase !== "receiving" && this.phase !== "awaiting-body" && this.phase !== "paused") return
    this.buffered.push(id)
    if (this.setup.streamed) {
      if (this.phase === "awaiting-body") {
        this.phase = "receiving"
        this.due.delete("body")
      }
      if (this.phase === "receiving") this.due.set("idle", this.now + this.setup.idleMs)
      if (this.phase === "receiving" && this.bytes() > highWaterBytes) {
        this.phase = "paused"
        this.socketPaused = true
        this.due.delete("idle")
      }
    }
    this.notify()
  }

  sizes = new Map<number, number>()
  bytes() {
    return this.buffered.reduce((sum, id) => sum + this.sizes.get(id)!, 0)
  }

  end() {
    if (this.settled) return
    this.phase = "ended"
    this.due.clear()
    this.notify()
  }

  take(): Array<number> {
    const out = this.buffered
    this.buffered = []
    if (this.phase === "paused") {
      this.phase = "receiving"
      this.socketPaused = false
      this.due.set("idle", this.now + this.setup.idleMs)
    }
    return out
  }

  release() {
    if (this.settled || this.phase === "draining") return
    if (this.phase === "paused") this.socketPaused = false
    this.phase = "draining"
    this.buffered = []
    this.waiting = undefined
    this.due.clear()
    this.due.set("drain", this.now + drainMs)
  }
}

/** Runs `commands` on a real exchange and the model, step by step, and compares them after each. */
const check = (setup: Setup, commands: ReadonlyArray<Command>) => {
  // Faked only while the exchange runs: the property runner schedules with the real ones.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "queueMicrotask"] })
  try {
    run(setup, commands)
  } finally {
    vi.useRealTimers()
  }
}

/** A routing deadline `ms` from now on the (faked) wall clock; the exchange fails with its error. */
const deadlineIn = (ms: number): Deadline => {
  const at = Date.now() + ms
  const error = timeoutFailure("p", "the request's routing deadline passed")
  return { at, left: () => at - Date.now(), error: () => error }
}

const run = (setup: Setup, commands: ReadonlyArray<Command>) => {
  const exchange = new UpstreamExchange(
    "p",
    { first_byte_ms: setup.firstByteMs, idle_ms: setup.idleMs, total_ms: setup.totalMs },
    setup.streamed,
    setup.deadlineMs === undefined ? undefined : deadlineIn(setup.deadlineMs)
  )
  const model = new Model(setup)
  const controller = new Controller()
  const control = controller as unknown as Dispatcher.DispatchController
  exchange.onRequestStart(control)
  let heads = 0
  const reads: Array<Array<number>> = []
  const reader = () => {
    reads.push(exchange.take().flatMap((chunk) => [chunk.length, chunk[0]!]))
    if (!exchange.settled && exchange.phase !== "draining") exchange.onChange = reader
  }
  let ids = 0
  let headGiven = false
  let endGiven = false
  const taken: Array<number> = []
  const expectedTaken: Array<number> = []
  const chunkOf = (id: number, size: number) => Buffer.alloc(size, id % 256)

  for (const [step, command] of commands.entries()) {
    // undici reports nothing more once the request is aborted (after the error for the abort).
    const live = !controller.aborted
    switch (command._tag) {
      case "Head":
        if (!live || headGiven) continue
        headGiven = true
        exchange.onResponseStart(control, command.status, {})
        model.head(command.status)
        break
      case "Chunk": {
        if (!live || !headGiven || endGiven) continue
        const id = ids++
        model.sizes.set(id, command.size)
        exchange.onResponseData(control, chunkOf(id, command.size))
        model.chunk(id)
        break
      }
      case "End":
        if (!live || !headGiven || endGiven) continue
        endGiven = true
        exchange.onResponseEnd()
        model.end()
        break
      case "ConnectionError":
        if (!live) continue
        exchange.onResponseError(control, Object.assign(new Error("reset"), { code: "ECONNRESET" }))
        if (!model.settled) model.settle("failed", ["ECONNRESET"])
        break
      case "Advance":
        vi.advanceTimersByTime(command.ms)
        model.advance(command.ms)
        break
      case "Flush":
        vi.runAllTicks()
        model.flush()
        break
      case "WaitHead":
        if (headGiven || exchange.onHead !== undefined || exchange.onChange !== undefined || exchange.settled) continue
        exchange.onHead = () => heads++
        model.waiting = "head"
        break
      case "Read":
        if (!headGiven || exchange.onHead !== undefined || exchange.onChange !== undefined || exchange.settled || exchange.phase === "draining") continue
        exchange.onChange = reader
        model.waiting = "reader"
        break
      case "Take":
        for (const chunk of exchange.take()) taken.push(chunk.length, chunk[0]!)
        for (const id of model.take()) expectedTaken.push(model.sizes.get(id)!, id % 256)
        break
      case "Release":
        exchange.release(drainMs)
        model.release()
        break
      case "Abort":
        exchange.abort()
        if (!model.settled) model.settle("aborted", undefined)
        break
    }
    const where = `after step ${step} (${command._tag})`
    expect(exchange.phase, where).toBe(model.phase)
    expect(controller.aborted, where).toBe(model.aborted)
    expect(controller.paused, where).toBe(model.socketPaused)
    expect(taken, where).toEqual(expectedTaken)
    expect(heads, where).toBe(model.heads)
    expect(reads, where).toEqual(model.reads)
    if (model.failure === undefined) expect(exchange.failure, where).toBeUndefined()
    else {
      const message = exchange.failure?.reason.message ?? ""
      expect(model.failure.some((fragment) => message.includes(fragment)), `${where}: ${message}`).toBe(true)
    }
    expect(exchange.ended, where).toBe(model.phase === "ended" || model.phase === "aborted")
  }
  exchange.abort()
}

describe("UpstreamExchange against its model", () => {
  it.prop(
    "random heads, chunks, pauses, errors, waits, takes, releases, cancels and time agree with the model",
    { setup: Setup, steps: Schema.Array(Step).check(Schema.isMinLength(30), Schema.isMaxLength(80)) },
    ({ setup, steps }) => {
      check(setup, steps.map(commandOf))
    },
    { arbitrary: { runs: 200 } }
  )

  it("a stream that pauses past the high-water mark resumes, with its idle timer, when the reader takes", () => {
    check({ streamed: true, firstByteMs: 50, idleMs: 20, totalMs: 400 }, [
      { _tag: "Head", status: 200 },
      { _tag: "Chunk", size: highWaterBytes / 2 + 1000 },
      { _tag: "Chunk", size: highWaterBytes / 2 + 1000 },
      { _tag: "Advance", ms: 100 },
      { _tag: "Take" },
      { _tag: "Advance", ms: 19 },
      { _tag: "Chunk", size: 10 },
      { _tag: "Advance", ms: 21 }
    ])
  })

  it("a paused stream released by its reader resumes the socket to drain it, and is aborted when the drain takes too long", () => {
    check({ streamed: true, firstByteMs: 50, idleMs: 20, totalMs: 400 }, [
      { _tag: "Head", status: 200 },
      { _tag: "Chunk", size: highWaterBytes / 2 + 1000 },
      { _tag: "Chunk", size: highWaterBytes / 2 + 1000 },
      { _tag: "Release" },
      { _tag: "Chunk", size: 10 },
      { _tag: "Advance", ms: 29 },
      { _tag: "Advance", ms: 1 }
    ])
  })

  it("each chunk of a stream gives the next a whole idle interval", () => {
    check({ streamed: true, firstByteMs: 50, idleMs: 20, totalMs: 400 }, [
      { _tag: "Head", status: 200 },
      { _tag: "Chunk", size: 10 },
      { _tag: "Advance", ms: 15 },
      { _tag: "Chunk", size: 10 },
      { _tag: "Advance", ms: 15 },
      { _tag: "Chunk", size: 10 },
      { _tag: "Advance", ms: 19 },
      { _tag: "Advance", ms: 1 }
    ])
  })

  it("a stream's first byte is due within what is left of first_byte_ms after the head", () => {
    check({ streamed: true, firstByteMs: 50, idleMs: 20, totalMs: 400 }, [
      { _tag: "Advance", ms: 30 },
      { _tag: "Head", status: 200 },
      { _tag: "Advance", ms: 19 },
      { _tag: "Advance", ms: 1 }
    ])
  })

  it("an abort before undici hands over its controller aborts it when it does", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "queueMicrotask"] })
    const exchange = new UpstreamExchange("p", { first_byte_ms: 50, idle_ms: 50, total_ms: 100 }, true)
    exchange.abort()
    const controller = new Controller()
    exchange.onRequestStart(controller as unknown as Dispatcher.DispatchController)
    expect(controller.aborted).toBe(true)
    expect(exchange.phase).toBe("aborted")
    vi.useRealTimers()
  })
})
