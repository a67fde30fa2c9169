import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { shuttingDown, type StreamStop } from "./StreamStop.ts"

export type Frames = Arr.NonEmptyReadonlyArray<Uint8Array>

/**
 * How a dialect writes its stream: a batch of events as one buffer; the frames that end it
 * normally (read once, at the end, so a stateful encoder can build them then; none closes with
 * nothing); those that replace the normal end when it fails after its first byte; its keep-alive
 * (chat's SSE comment, Messages' `ping` event); and the frames that end a stream the server stops.
 */
export interface SseEncoding<A> {
  readonly batch: (events: Arr.NonEmptyReadonlyArray<A>) => Uint8Array
  readonly done: () => ReadonlyArray<Uint8Array>
  readonly failed: (error: GatewayError) => ReadonlyArray<Uint8Array>
  readonly keepAlive: Uint8Array
  readonly stopped: ReadonlyArray<Uint8Array>
}

export interface SseBodyOptions<A> {
  readonly encoding: SseEncoding<A>
  /** A keep-alive goes out whenever nothing did for this long. */
  readonly keepAliveMs: number
  readonly stop: StreamStop
}

type Answer = Effect.Effect<Frames, GatewayError | Cause.Done>

/** The closing frames of a body, or its end when a dialect closes with none. */
const last = (frames: ReadonlyArray<Uint8Array>): Answer =>
  frames.length === 0 ? Cause.done() : Effect.succeed(frames as Frames)

/**
 * The one writer of an SSE response, and the reader that feeds it. Everything the client gets is
 * an element of the body stream: the encoded events, a keep-alive after `keepAliveMs` of silence,
 * the normal end, the frames of a failure after the first byte, and those of a stream the server
 * stops (all in the dialect's `SseEncoding`).
 *
 * The reader is a fiber of the request that pulls the events and encodes each batch; the writer is
 * whoever pulls the body (the route for the first frames, then the server). The writer is in one of
 * three states:
 * - **waiting** (`writer` set): the first of a frame, the events' end, the keep-alive timer or the
 *   stop to come answers it at once, from the reader's fiber or the timer;
 * - **writing** (`writer` unset, not finished): what comes meanwhile is kept (one encoded batch, the
 *   end, the stop) and answered by its next pull; the reader waits while a batch is kept, so at most
 *   one batch is read ahead, and a keep-alive that falls due is skipped (the socket is busy anyway);
 * - **finished**: the end, an error frame or the cut went out; every later pull ends the body.
 * Before anything went out, a failure or the stop is an error, so the route answers with a proper
 * HTTP error instead; after it, each becomes its closing frames.
 *
 * A batch costs one hand-over between two fibers (the writer is resumed on the reader's stack) and a
 * timer `refresh()`. Waiting for the events in the writer itself would save that hand-over, but then
 * nothing could answer the writer while the events are silent except a second writer on the socket.
 */
class SseRelay<A> {
  private readonly options: SseBodyOptions<A>
  private readonly read: Effect.Effect<void>
  private readonly readAfterRoom: Effect.Effect<void>
  /** An encoded batch the writer has not taken yet. */
  private kept: Uint8Array | undefined
  /** How the events ended, once they did. */
  private ended: Exit.Exit<void, GatewayError> | undefined
  private stopRequested: boolean
  /** Something went out: failures and the stop are closing frames from now on. */
  private started = false
  private finished = false
  /** The first frames, taken by the route before the response starts and given to the body's first pull. */
  private held: Frames | undefined
  private writer: ((answer: Answer) => void) | undefined
  private reader: (() => void) | undefined
  private readonly timer: NodeJS.Timeout
  private readonly unsubscribe: () => void

  constructor(options: SseBodyOptions<A>, pull: Pull.Pull<Arr.NonEmptyReadonlyArray<A>, GatewayError, unknown>) {
    this.options = options
    // The reader's loop: built once, run for every batch.
    this.read = Effect.matchCauseEffect(pull, { onSuccess: this.onBatch, onFailure: this.onEnd })
    this.readAfterRoom = Effect.flatMap(this.waitForRoom, () => this.read)
    this.stopRequested = options.stop.stopped
    this.unsubscribe = options.stop.subscribe(this.onStop)
    this.timer = setTimeout(this.onQuiet, options.keepAliveMs)
    this.timer.unref()
  }

  /** What the writer gets now, if anything is there for it. */
  private take(): Answer | undefined {
    const encoding = this.options.encoding
    if (this.stopRequested) {
      const kept = this.kept
      this.finish()
      if (!this.started) return Effect.fail(shuttingDown())
      return last(kept === undefined ? encoding.stopped : [kept, ...encoding.stopped])
    }
    const kept = this.kept
    if (kept !== undefined) {
      this.kept = undefined
      this.started = true
      this.timer.refresh()
      const reader = this.reader
      this.reader = undefined
      reader?.()
      return Effect.succeed([kept])
    }
    const ended = this.ended
    if (ended === undefined) return undefined
    this.finish()
    if (Exit.isSuccess(ended)) return last(encoding.done())
    const error = Cause.findErrorOption(ended.cause)
    // Before the first byte a failure is the response (a proper HTTP error); a defect stays one.
    if (!this.started || error._tag === "None") return Effect.failCause(ended.cause)
    return last(encoding.failed(error.value))
  }

  private finish(): void {
    this.finished = true
    this.kept = undefined
    clearTimeout(this.timer)
    this.unsubscribe()
  }

  /** Answers the writer if it waits and something is there for it. */
  private answer(): void {
    const writer = this.writer
    if (writer === undefined) return
    const answer = this.take()
    if (answer === undefined) return
    this.writer = undefined
    writer(answer)
  }

  private readonly onStop = (): void => {
    this.stopRequested = true
    this.answer()
  }

  private readonly onQuiet = (): void => {
    if (this.finished) return
    const writer = this.writer
    if (writer !== undefined) {
      this.writer = undefined
      this.started = true
      writer(Effect.succeed([this.options.encoding.keepAlive]))
    }
    this.timer.refresh()
  }

  private readonly waitForAnswer: Answer = Effect.callback<Frames, GatewayError | Cause.Done>((resume) => {
    this.writer = resume
  })

  /** The writer's pull: the frames held for it, or whatever is there, or the first thing to come. */
  readonly next: Answer = Effect.suspend(() => {
    const held = this.held
    if (held !== undefined) {
      this.held = undefined
      return Effect.succeed(held)
    }
    if (this.finished) return Cause.done()
    return this.take() ?? this.waitForAnswer
  })

  /** Waits for the first frames and holds them for the body; fails when the response should be an HTTP error. */
  readonly first: Effect.Effect<void, GatewayError> = Effect.matchCauseEffect(this.next, {
    onSuccess: (frames) => {
      this.held = frames
      return Effect.void
    },
    onFailure: (cause) => (Pull.isDoneCause(cause) ? Effect.void : Effect.failCause(cause as Cause.Cause<GatewayError>))
  })

  private readonly waitForRoom: Effect.Effect<void> = Effect.callback<void>((resume) => {
    this.reader = () => resume(Effect.void)
  })

  private readonly onBatch = (batch: Arr.NonEmptyReadonlyArray<A>): Effect.Effect<void> => {
    this.kept = this.options.encoding.batch(batch)
    this.answer()
    return this.kept === undefined ? this.read : this.readAfterRoom
  }

  private readonly onEnd = (cause: Cause.Cause<GatewayError | Cause.Done<unknown>>): Effect.Effect<void> => {
    this.ended = Pull.isDoneCause(cause) ? Exit.void : Exit.failCause(cause as Cause.Cause<GatewayError>)
    this.answer()
    return Effect.void
  }

  /**
   * The reader, whose end closes the events' scope with how they ended: the upstream call is
   * released after a normal end and aborted, its attempt counted as cancelled, when the reader is
   * interrupted (the client went away, or the body ended early because the server stopped).
   */
  reading(eventsScope: Scope.Closeable): Effect.Effect<void> {
    return Effect.onExit(this.read, (exit) => {
      if (Exit.isSuccess(exit)) return Scope.close(eventsScope, this.ended ?? Exit.void)
      // The request ended before its body did: its keep-alive timer and its stop listener go with it.
      if (!this.finished) this.finish()
      return Scope.close(eventsScope, exit)
    })
  }
}

/**
 * The body of an SSE response (see `SseRelay`), once its first frames are known: a failure before
 * them fails this effect, so the caller can still answer with an HTTP error. The events are read
 * in a fiber of `Scope` (the request's), which ends it.
 */
export const sseBody = <A>(
  events: Stream.Stream<A, GatewayError>,
  options: SseBodyOptions<A>
): Effect.Effect<Stream.Stream<Uint8Array, GatewayError>, GatewayError, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.flatMap(Scope.fork(scope), (eventsScope) =>
      Effect.flatMap(Channel.toPullScoped(events.channel, eventsScope), (pull) => {
        const relay = new SseRelay(options, pull)
        return Effect.flatMap(Effect.forkIn(relay.reading(eventsScope), scope, { startImmediately: true }), () =>
          Effect.as(relay.first, Stream.fromPull(Effect.succeed(relay.next))))
      })))
