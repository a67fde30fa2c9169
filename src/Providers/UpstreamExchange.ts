import type { IncomingHttpHeaders } from "node:http"
import type { Dispatcher } from "undici"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { Deadline } from "../Streams/Deadline.ts"
import { connectFailure, timeoutFailure } from "./ProviderErrors.ts"

export interface ExchangeTimeouts {
  readonly first_byte_ms: number
  readonly idle_ms: number
  readonly total_ms: number
}

/** Body bytes buffered for a slow reader before the upstream socket is paused. */
export const highWaterBytes = 64 * 1024

// One shared reason: aborting must not capture a stack per request.
const abortReason = new Error("request aborted by the gateway")

const errorText = (error: Error): string => (error as NodeJS.ErrnoException).code ?? error.message

/**
 * Where an exchange is. The live phases, in order:
 * - `awaiting-head`: the request is dispatched; the head is due within `first_byte_ms`.
 * - `awaiting-body` (streamed only): the head is in; the first body byte is due within what is left
 *   of `first_byte_ms`.
 * - `receiving`: the body comes; on a stream each chunk is due within `idle_ms` of the one before.
 * - `paused` (streamed only): more than `highWaterBytes` wait unread, so the socket is paused and
 *   the idle timer with it, until the reader takes them.
 * - `draining`: the reader has all it wanted (an SSE terminator came before the body's end); the
 *   rest is read and dropped, for at most the drain time, so the connection can be reused.
 * The settled ones: `ended` (the body is complete), `failed` (a timeout or a connection error,
 * `failure` says which) and `aborted` (stopped by the gateway; nobody is told). Everything within
 * `total_ms`, and the request's routing deadline, from the start.
 */
export type ExchangePhase = "awaiting-head" | "awaiting-body" | "receiving" | "paused" | "draining" | "ended" | "failed" | "aborted"

/**
 * One upstream HTTP exchange as undici's dispatcher reports it, driven by its callbacks
 * (`onRequestStart`, `onResponseStart`, `onResponseData`, `onResponseEnd`, `onResponseError`)
 * and by its reader (`take`, `release`, `abort`), with the provider's timeouts on Node timers.
 *
 * Transitions (anything not listed leaves the phase as it is; nothing leaves a settled phase):
 *
 * | from | event | to |
 * | --- | --- | --- |
 * | awaiting-head | head | awaiting-body (streamed), receiving (whole) |
 * | awaiting-body | a chunk | receiving, or paused past the high-water mark |
 * | receiving | a chunk past the high-water mark (streamed) | paused |
 * | paused | `take()` | receiving (the idle timer starts again) |
 * | any but draining | the body's end | ended |
 * | any live | `release()` | draining (what is buffered is dropped) |
 * | draining | the body's end | ended |
 * | draining | the drain time is up | aborted |
 * | any live | a connection error, a timer of the phase, the total time, the deadline | failed |
 * | any live | `abort()` | aborted |
 *
 * Whoever waits (`onHead` until the head, then the body's reader in `onChange`; one at a time, a
 * reader registers only once the head is in) is woken once per network read, on a microtask (see
 * `wakeSoon`), after every change: the head, chunks, the end, a failure.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  phase: ExchangePhase = "awaiting-head"
  status = 0
  headers: IncomingHttpHeaders = {}
  /** Chunks not yet taken by the reader. */
  chunks: Array<Buffer> = []
  failure: GatewayError | undefined
  /** Called once the head is in, or on failure before it. */
  onHead: (() => void) | undefined
  /** Called when chunks, the end or a failure arrive while the body's reader waits. */
  onChange: (() => void) | undefined

  private readonly provider: string
  private readonly timeouts: ExchangeTimeouts
  private readonly streamed: boolean
  private readonly startedAt = Date.now()
  private controller: Dispatcher.DispatchController | undefined
  /** `abort()` came before undici handed over its controller: abort as soon as it does. */
  private abortRequested = false
  /** Bytes in `chunks`. */
  private buffered = 0
  private wakeQueued = false
  /** The timer of the current phase: first byte, idle, or drain. */
  private phaseTimer: NodeJS.Timeout | undefined
  /** The whole exchange: `total_ms`, or the routing deadline when it comes first. */
  private totalTimer: NodeJS.Timeout | undefined

  /**
   * `deadline`: the request's routing deadline. The exchange ends then at the latest, failing with
   * the deadline's own error, on the same timer as `total_ms`: the router needs no watcher fiber
   * per attempt. The time left is read through the deadline's clock.
   */
  constructor(provider: string, timeouts: ExchangeTimeouts, streamed: boolean, deadline?: Deadline) {
    this.provider = provider
    this.timeouts = timeouts
    this.streamed = streamed
    if (timeouts.first_byte_ms < timeouts.total_ms) {
      this.phaseTimer = setTimeout(() => this.timeUp(`no response within ${timeouts.first_byte_ms} ms`), timeouts.first_byte_ms)
    }
    const left = deadline === undefined ? timeouts.total_ms : Math.max(0, deadline.left())
    this.totalTimer = left < timeouts.total_ms
      ? setTimeout(() => this.cutOff(deadline!.error()), left)
      : setTimeout(
        () => this.timeUp(`the ${streamed && this.status !== 0 ? "stream" : "call"} took longer than ${timeouts.total_ms} ms`),
        timeouts.total_ms
      )
  }

  get settled(): boolean {
    return this.phase === "ended" || this.phase === "failed" || this.phase === "aborted"
  }

  /** Nothing more will come: the body's end, or the gateway stopped the exchange. */
  get ended(): boolean {
    return this.phase === "ended" || this.phase === "aborted"
  }

  /** any live -> aborted: closes the upstream socket if still open (client gone, reader failed). */
  abort(): void {
    if (this.settled) return
    this.settle("aborted", undefined)
  }

  /** any live -> draining, for at most `drainMs`; then aborted after all. */
  release(drainMs: number): void {
    if (this.settled || this.phase === "draining") return
    const resume = this.phase === "paused"
    this.phase = "draining"
    this.chunks = []
    this.buffered = 0
    this.onHead = undefined
    this.onChange = undefined
    this.clearTimers()
    this.phaseTimer = setTimeout(() => this.abort(), drainMs)
    if (resume) this.controller?.resume()
  }

  /** Takes everything buffered so far; paused -> receiving. */
  take(): Array<Buffer> {
    const out = this.chunks
    this.chunks = []
    this.buffered = 0
    if (this.phase === "paused") {
      this.phase = "receiving"
      this.controller?.resume()
      this.armIdle()
    }
    return out
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.abortRequested) controller.abort(abortReason)
  }

  /** awaiting-head -> awaiting-body (streamed) or receiving. */
  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (this.phase !== "awaiting-head") return
    this.status = status
    this.headers = headers
    clearTimeout(this.phaseTimer)
    this.phaseTimer = undefined
    if (this.streamed) {
      this.phase = "awaiting-body"
      const left = Math.max(1, this.timeouts.first_byte_ms - (Date.now() - this.startedAt))
      this.phaseTimer = setTimeout(() => this.timeUp(`no data within ${this.timeouts.first_byte_ms} ms`), left)
    } else {
      this.phase = "receiving"
    }
    this.wakeSoon()
  }

  /** awaiting-body -> receiving; receiving -> paused past the high-water mark; dropped while draining. */
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const phase = this.phase
    if (phase !== "receiving" && phase !== "awaiting-body" && phase !== "paused") return
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.streamed) {
      if (phase === "awaiting-body") {
        this.phase = "receiving"
        this.armIdle()
      } else if (phase === "receiving") {
        this.phaseTimer?.refresh()
      }
      if (this.buffered > highWaterBytes && this.phase === "receiving") {
        this.phase = "paused"
        controller.pause()
        clearTimeout(this.phaseTimer)
        this.phaseTimer = undefined
      }
    }
    this.wakeSoon()
  }

  /** any live -> ended. */
  onResponseEnd(): void {
    if (this.settled) return
    this.phase = "ended"
    this.clearTimers()
    this.wakeSoon()
  }

  /** any live -> failed. */
  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return
    this.settle("failed", connectFailure(this.provider, errorText(error)))
  }

  private armIdle(): void {
    clearTimeout(this.phaseTimer)
    this.phaseTimer = setTimeout(() => this.timeUp(`the stream was silent for ${this.timeouts.idle_ms} ms`), this.timeouts.idle_ms)
  }

  /** A timer of the exchange ran out: a live state -> failed. */
  private timeUp(what: string): void {
    if (this.settled) return
    this.settle("failed", timeoutFailure(this.provider, what))
  }

  /** The routing deadline passed: a live state -> failed, with the deadline's error. */
  private cutOff(error: GatewayError): void {
    if (this.settled) return
    this.settle("failed", error)
  }

  private settle(phase: "failed" | "aborted", failure: GatewayError | undefined): void {
    this.phase = phase
    this.failure = failure
    this.clearTimers()
    if (this.controller !== undefined) {
      if (!this.controller.aborted) this.controller.abort(abortReason)
    } else {
      this.abortRequested = true
    }
    this.wakeSoon()
  }

  private clearTimers(): void {
    clearTimeout(this.phaseTimer)
    clearTimeout(this.totalTimer)
    this.phaseTimer = undefined
    this.totalTimer = undefined
  }

  /**
   * Whoever waits is woken once per network read rather than once per HTTP chunk: undici parses a
   * whole read at once and reports each chunk of it as it goes, so a wake on a microtask finds
   * everything that read brought (the headers, the role chunk and the first content, say) and it
   * goes down the stream as one batch instead of one trip through every stage per chunk.
   */
  private wakeSoon(): void {
    if (this.wakeQueued || (this.onHead === undefined && this.onChange === undefined)) return
    this.wakeQueued = true
    queueMicrotask(this.wake)
  }

  private readonly wake = (): void => {
    this.wakeQueued = false
    const head = this.onHead
    if (head !== undefined) {
      // The reader of the body registers only after the head, so no one waits for a change yet.
      this.onHead = undefined
      return head()
    }
    const change = this.onChange
    if (change === undefined) return
    this.onChange = undefined
    change()
  }
}
