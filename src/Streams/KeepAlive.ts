import { type Array as Arr, type Cause, Effect, Fiber, Option, Stream } from "effect"

/**
 * Emits `frame` whenever `stream` stays silent for `intervalMs`, without disturbing the pending
 * read: the same pull keeps running in the background and its result is delivered when it
 * arrives. Used so proxies do not close an SSE connection while a model thinks.
 */
export const withKeepAlive = <A, E>(stream: Stream.Stream<A, E>, intervalMs: number, frame: A): Stream.Stream<A, E> =>
  Stream.scoped(
    Stream.fromPull(
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const pull = yield* Stream.toPull(stream)
        let pending: Fiber.Fiber<Arr.NonEmptyReadonlyArray<A>, E | Cause.Done<void>> | undefined
        const keepAlive: Arr.NonEmptyReadonlyArray<A> = [frame]
        return Effect.gen(function* () {
          pending ??= yield* Effect.forkIn(pull, scope)
          const exit = yield* Effect.timeoutOption(Fiber.await(pending), intervalMs)
          if (Option.isNone(exit)) return keepAlive
          pending = undefined
          return yield* exit.value
        })
      })
    )
  )
