import { type Array as Arr, type Cause, Effect, Exit, Option, Scope, Stream } from "effect"

const liveClock = Effect.runSync(Effect.clockWith(Effect.succeed))

type Batch<A> = Arr.NonEmptyReadonlyArray<A>

/**
 * Turns each batch of `stream` into one frame with `encode`, and emits `frame` whenever the
 * stream stays silent for `intervalMs`, without disturbing the pending read. Used so proxies do
 * not close an SSE connection while a model thinks.
 *
 * One reader fiber per stream pulls the source and hands each result over through a one-slot
 * mailbox (so it reads at most one batch ahead); the writer waits on the mailbox with a timer
 * that is cleared as soon as the batch comes. Nothing is allocated per batch beyond the two
 * hand-overs, and nothing outlives its batch.
 */
export const withKeepAlive = <A, E, B>(
  stream: Stream.Stream<A, E>,
  intervalMs: number,
  frame: B,
  encode: (batch: Batch<A>) => B
): Stream.Stream<B, E> =>
  Stream.transformPull(stream, (pull, scope) =>
    Effect.gen(function* () {
      const keepAlive: Batch<B> = [frame]
      const live = (yield* Effect.clockWith(Effect.succeed)) === liveClock
      let slot: Exit.Exit<Batch<A>, E | Cause.Done<void>> | undefined
      let wakeWriter: (() => void) | undefined
      let wakeReader: (() => void) | undefined

      const handedOver = Effect.callback<void>((resume) => {
        wakeReader = () => resume(Effect.void)
      })
      const read: Effect.Effect<void> = Effect.flatMap(Effect.exit(pull), (exit) => {
        slot = exit
        const wake = wakeWriter
        wakeWriter = undefined
        wake?.()
        if (!Exit.isSuccess(exit)) return Effect.void
        // The writer may have taken it already, while being woken.
        return slot === undefined ? read : Effect.flatMap(handedOver, () => read)
      })
      yield* Effect.forkIn(read, scope, { startImmediately: true })

      const take = (): Effect.Effect<Batch<B>, E | Cause.Done<void>> => {
        const exit = slot!
        slot = undefined
        const wake = wakeReader
        wakeReader = undefined
        wake?.()
        return Exit.map(exit, (batch): Batch<B> => [encode(batch)])
      }
      // One timer per stream, re-armed with `refresh()` at each wait instead of a new timer per
      // batch; when it fires with nobody waiting it does nothing.
      let timer: NodeJS.Timeout | undefined
      let onTimeUp: (() => void) | undefined
      if (live) {
        yield* Scope.addFinalizer(scope, Effect.sync(() => clearTimeout(timer)))
      }
      // Resolves true when a batch is in the slot, false when `intervalMs` passed first.
      const arrived: Effect.Effect<boolean> = live
        ? Effect.callback<boolean>((resume) => {
          onTimeUp = () => {
            wakeWriter = undefined
            resume(Effect.succeed(false))
          }
          wakeWriter = () => {
            onTimeUp = undefined
            resume(Effect.succeed(true))
          }
          if (timer === undefined) {
            timer = setTimeout(() => {
              const timeUp = onTimeUp
              onTimeUp = undefined
              timeUp?.()
            }, intervalMs)
          } else timer.refresh()
          return Effect.sync(() => {
            onTimeUp = undefined
            wakeWriter = undefined
          })
        })
        : Effect.map(
          Effect.timeoutOption(
            Effect.callback<boolean>((resume) => {
              wakeWriter = () => resume(Effect.succeed(true))
              return Effect.sync(() => {
                wakeWriter = undefined
              })
            }),
            intervalMs
          ),
          Option.getOrElse(() => false)
        )
      return Effect.suspend(() => {
        if (slot !== undefined) return take()
        return Effect.flatMap(arrived, (came) => (came ? take() : Effect.succeed(keepAlive)))
      })
    }))
