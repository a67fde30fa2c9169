import type { IncomingHttpHeaders } from "node:http"
import type { Dispatcher } from "undici"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { connectFailure, timeoutFailure } from "./ProviderErrors.ts"

export interface ExchangeTimeouts {
  readonly first_byte_ms: number
  readonly idle_ms: number
  readonly total_ms: number
}

/** Body bytes buffered for a slow reader before the upstream socket is paused. */
const highWaterBytes = 64 * 1024

// One shared reason: aborting must not capture a stack per request.
const abortReason = new Error("request aborted by the gateway")

const errorText = (error: Error): string => (error as NodeJS.ErrnoException).code ?? error.message

/**
 * One upstream HTTP exchange as undici's dispatcher reports it, with the provider's timeouts
 * on Node timers: until the headers `first_byte_ms`; for a streamed body the first chunk within
 * what is left of it and every later chunk within `idle_ms`; everything within `total_ms`.
 * Chunks are kept until read; past a high-water mark the socket is paused (and the idle timer
 * with it) until the reader catches up, so a slow client costs a bounded amount of memory.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  status = 0
  headers: IncomingHttpHeaders = {}
  chunks: Array<Buffer> = []
  ended = false
  failure: GatewayError | undefined
  /** Called once the headers are in, or on failure before them. */
  onHead: (() => void) | undefined
  /** Called when chunks, the end or a failure arrive while someone waits. */
  onChange: (() => void) | undefined

  private readonly provider: string
  private readonly timeouts: ExchangeTimeouts
  private readonly streamed: boolean
  private readonly startedAt = Date.now()
  private controller: Dispatcher.DispatchController | undefined
  private abortRequested = false
  private buffered = 0
  private sawBody = false
  private paused = false
  private draining = false
  private wakeQueued = false
  private phaseTimer: NodeJS.Timeout | undefined
  private totalTimer: NodeJS.Timeout | undefined

  /** `deadlineAt` (epoch ms): the request's routing deadline; the exchange ends then at the latest. */
  constructor(provider: string, timeouts: ExchangeTimeouts, streamed: boolean, deadlineAt?: number) {
    this.provider = provider
    this.timeouts = timeouts
    this.streamed = streamed
    if (timeouts.first_byte_ms < timeouts.total_ms) {
      this.phaseTimer = setTimeout(() => this.timeUp(`no response within ${timeouts.first_byte_ms} ms`), timeouts.first_byte_ms)
    }
    const left = deadlineAt === undefined ? timeouts.total_ms : Math.max(0, deadlineAt - this.startedAt)
    this.totalTimer = left < timeouts.total_ms
      ? setTimeout(() => this.timeUp("the request's routing deadline passed"), left)
      : setTimeout(
        () => this.timeUp(`the ${streamed && this.status !== 0 ? "stream" : "call"} took longer than ${timeouts.total_ms} ms`),
        timeouts.total_ms
      )
  }

  get settled(): boolean {
    return this.ended || this.failure !== undefined
  }

  /** Stops the exchange (client gone, reader failed); closes the upstream socket if still open. */
  abort(): void {
    if (this.settled) return
    this.fail(undefined)
  }

  /**
   * The reader has all it wanted (an SSE stream's terminator came before the body's end):
   * what is left is read and dropped so the connection can be reused, for at most `drainMs`,
   * after which the socket is closed after all.
   */
  release(drainMs: number): void {
    if (this.settled) return
    this.draining = true
    this.chunks = []
    this.buffered = 0
    this.onHead = undefined
    this.onChange = undefined
    this.clearTimers()
    this.phaseTimer = setTimeout(() => this.abort(), drainMs)
    if (this.paused) {
      this.paused = false
      this.controller?.resume()
    }
  }

  /** Takes everything buffered so far. */
  take(): Array<Buffer> {
    const out = this.chunks
    this.chunks = []
    this.buffered = 0
    if (this.paused && !this.settled) {
      this.paused = false
      this.controller?.resume()
      this.armIdle()
    }
    return out
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.abortRequested) controller.abort(abortReason)
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (this.settled) return
    this.status = status
    this.headers = headers
    clearTimeout(this.phaseTimer)
    this.phaseTimer = undefined
    if (this.streamed) {
      const left = Math.max(1, this.timeouts.first_byte_ms - (Date.now() - this.startedAt))
      this.phaseTimer = setTimeout(() => this.timeUp(`no data within ${this.timeouts.first_byte_ms} ms`), left)
    }
    this.wakeSoon()
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || this.draining) return
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.streamed) {
      if (!this.sawBody) {
        this.sawBody = true
        clearTimeout(this.phaseTimer)
        this.phaseTimer = undefined
        this.armIdle()
      } else {
        this.phaseTimer?.refresh()
      }
      if (this.buffered > highWaterBytes && !this.paused) {
        this.paused = true
        controller.pause()
        clearTimeout(this.phaseTimer)
        this.phaseTimer = undefined
      }
    }
    this.wakeSoon()
  }

  onResponseEnd(): void {
    if (this.settled) return
    this.ended = true
    this.clearTimers()
    this.wakeSoon()
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return
    this.fail(connectFailure(this.provider, errorText(error)))
  }

  private armIdle(): void {
    if (!this.streamed || this.settled || !this.sawBody) return
    clearTimeout(this.phaseTimer)
    this.phaseTimer = setTimeout(() => this.timeUp(`the stream was silent for ${this.timeouts.idle_ms} ms`), this.timeouts.idle_ms)
  }

  private timeUp(what: string): void {
    if (this.settled) return
    this.fail(timeoutFailure(this.provider, what))
  }

  /** `undefined`: stopped by us, nobody is told. */
  private fail(failure: GatewayError | undefined): void {
    this.clearTimers()
    if (failure === undefined) this.ended = true
    else this.failure = failure
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
