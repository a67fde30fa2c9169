import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope, Stream } from "effect"
import { GatewayError, UpstreamFailure } from "../../src/Domain/GatewayError.ts"
import { type SseEncoding, sseBody } from "../../src/Streams/SseBody.ts"
import { neverStops, stoppedMessage, type StreamStop } from "../../src/Streams/StreamStop.ts"

const text = (frames: ReadonlyArray<Uint8Array>) => frames.map((f) => Buffer.from(f).toString("utf8"))

const closing = (message: string) => [Buffer.from(`data: {"error":"${message}"}\n\n`), Buffer.from("data: [DONE]\n\n")]
const encoding: SseEncoding<string> = {
  batch: (batch) => Buffer.from(batch.map((s) => `data: ${s}\n\n`).join("")),
  done: () => [Buffer.from("data: [DONE]\n\n")],
  failed: (error) => closing(error.reason.message),
  keepAlive: Buffer.from(": keep-alive\n\n"),
  stopped: closing(stoppedMessage)
}

const failure = (message: string) =>
  new GatewayError({ reason: new UpstreamFailure({ message, provider: "p", kind: "server" }) })

/** A stop the test fires by hand. */
const manualStop = () => {
  const listeners = new Set<() => void>()
  const stop: StreamStop & { fire: () => void; listening: () => number } = {
    listening: () => listeners.size,
    stopped: false,
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    fire: () => {
      for (const listener of listeners) listener()
    }
  }
  return stop
}

/** Every frame of the body, as text. */
const frames = (events: Stream.Stream<string, GatewayError>, keepAliveMs: number, stop: StreamStop = neverStops, encoded = encoding) =>
  Effect.scoped(Effect.flatMap(sseBody(events, { encoding: encoded, keepAliveMs, stop }), (body) => Effect.map(Stream.runCollect(body), text)))

describe("sseBody", () => {
  it.live("gives the events as frames, then the end, when the first comes within the interval", () =>
    Effect.gen(function* () {
      const events = Stream.fromEffect(Effect.as(Effect.sleep(5), "a")).pipe(Stream.concat(Stream.make("b", "c")))
      expect(yield* frames(events, 1000)).toEqual(["data: a\n\n", "data: b\n\ndata: c\n\n", "data: [DONE]\n\n"])
    }))

  it.live("fails before the first frame with the events' failure, so the response is an HTTP error", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(frames(Stream.fail(failure("boom")), 1000))
      expect(exit).toEqual(Exit.fail(failure("boom")))
    }))

  it.live("after the first frame a failure is the error frame and the end", () =>
    Effect.gen(function* () {
      const events = Stream.make("a").pipe(Stream.concat(Stream.fail(failure("later"))))
      expect(yield* frames(events, 1000)).toEqual(["data: a\n\n", 'data: {"error":"later"}\n\n', "data: [DONE]\n\n"])
    }))

  it.live("leaves a slow first read running behind a keep-alive, and gives its events after it", () =>
    Effect.gen(function* () {
      const events = Stream.fromEffect(Effect.as(Effect.sleep(80), "late"))
      const all = yield* frames(events, 20)
      expect(all.slice(-2)).toEqual(["data: late\n\n", "data: [DONE]\n\n"])
      // The response opened with a keep-alive, and only keep-alives came while the read went on.
      expect(all.length).toBeGreaterThanOrEqual(3)
      expect(all.slice(0, -2).every((f) => f === ": keep-alive\n\n")).toBe(true)
    }))

  it.live("sends a keep-alive after each interval of silence, and none while events flow", () =>
    Effect.gen(function* () {
      // Six batches back to back (no time passes between them, so no keep-alive can fall due), then
      // 130 ms of silence with an interval of 40 ms, then the last event.
      const busy = Stream.fromIterable([1, 2, 3, 4, 5, 6]).pipe(Stream.map((i) => `e${i}`), Stream.rechunk(1))
      const quiet = Stream.fromEffect(Effect.as(Effect.sleep(130), "last"))
      const all = yield* frames(Stream.concat(busy, quiet), 40)
      const keepAlives = all.map((f, i) => [f, i] as const).filter(([f]) => f === ": keep-alive\n\n").map(([, i]) => i)
      expect(all.slice(0, 6)).toEqual(["data: e1\n\n", "data: e2\n\n", "data: e3\n\n", "data: e4\n\n", "data: e5\n\n", "data: e6\n\n"])
      // Timers fire late on a loaded machine, never early: at least one in the silence, at most one per interval.
      expect(keepAlives.every((i) => i > 5)).toBe(true)
      expect(keepAlives.length).toBeGreaterThanOrEqual(1)
      expect(keepAlives.length).toBeLessThanOrEqual(3)
      expect(all.slice(-2)).toEqual(["data: last\n\n", "data: [DONE]\n\n"])
    }))

  it.live("the read pending when the request ends is interrupted, and its events are closed as interrupted", () =>
    Effect.gen(function* () {
      let closedWith: Exit.Exit<unknown, unknown> | undefined
      const events = Stream.concat(Stream.make("a"), Stream.never).pipe(Stream.onExit((exit) => Effect.sync(() => (closedWith = exit))))
      const scope = yield* Scope.make()
      const body = yield* Scope.provide(scope)(sseBody(events, { encoding, keepAliveMs: 10_000, stop: neverStops }))
      const reading = yield* Effect.forkChild(Stream.runCollect(body))
      yield* Effect.sleep(20)
      yield* Scope.close(scope, Exit.void)
      yield* Fiber.interrupt(reading)
      expect(closedWith !== undefined && Exit.hasInterrupts(closedWith)).toBe(true)
    }))

  it.live("a request that ends before its body stops listening for the stop", () =>
    Effect.gen(function* () {
      const stop = manualStop()
      const scope = yield* Scope.make()
      yield* Scope.provide(scope)(sseBody(Stream.concat(Stream.make("a"), Stream.never), { encoding, keepAliveMs: 10_000, stop }))
      expect(stop.listening()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      expect(stop.listening()).toBe(0)
    }))

  it.live("the stop after the first frame ends the body with the frame saying so; the events are closed as interrupted", () =>
    Effect.gen(function* () {
      const stop = manualStop()
      let closedWith: Exit.Exit<unknown, unknown> | undefined
      const events = Stream.concat(Stream.make("a"), Stream.never).pipe(Stream.onExit((exit) => Effect.sync(() => (closedWith = exit))))
      const collected = yield* Effect.forkChild(frames(events, 10_000, stop))
      yield* Effect.sleep(20)
      stop.fire()
      const all = yield* Fiber.join(collected)
      expect(all[0]).toBe("data: a\n\n")
      expect(all.slice(1)).toEqual([`data: {"error":"The gateway stopped before this stream ended; retry the request."}\n\n`, "data: [DONE]\n\n"])
      expect(closedWith !== undefined && Exit.hasInterrupts(closedWith)).toBe(true)
    }))

  it.live("the stop before anything went out fails the response with shutting_down", () =>
    Effect.gen(function* () {
      const stop = manualStop()
      const waiting = yield* Effect.forkChild(Effect.exit(frames(Stream.never, 10_000, stop)))
      yield* Effect.sleep(20)
      stop.fire()
      const exit = yield* Fiber.join(waiting)
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("shutting_down")
    }))

  it.live("a dialect that closes with no frames ends the body with its last batch", () =>
    Effect.gen(function* () {
      expect(yield* frames(Stream.make("a", "b"), 1000, neverStops, { ...encoding, done: () => [] })).toEqual(["data: a\n\ndata: b\n\n"])
    }))

  it.live("reads at most one batch ahead of a writer that does not pull", () =>
    Effect.gen(function* () {
      let pulled = 0
      const events = Stream.fromIterable([1, 2, 3, 4, 5]).pipe(Stream.mapEffect((i) => Effect.sync(() => {
        pulled++
        return `e${i}`
      })), Stream.rechunk(1))
      yield* Effect.scoped(Effect.gen(function* () {
        yield* sseBody(events, { encoding, keepAliveMs: 10_000, stop: neverStops })
        yield* Effect.sleep(20)
        // The first batch is held for the response's start, one more is read ahead.
        expect(pulled).toBe(2)
      }))
    }))
})
