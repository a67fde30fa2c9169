import { Effect, Stream } from "effect"

/**
 * Bounds the wait for a stream's first element and, when `idleMs` is given, every later wait.
 * Enforced per pull on the body itself, not only on response headers.
 */
export const withStreamTimeouts = <A, E>(
  stream: Stream.Stream<A, E>,
  options: {
    readonly firstMs: number
    readonly idleMs?: number | undefined
    readonly onFirst: () => E
    readonly onIdle?: (() => E) | undefined
  }
): Stream.Stream<A, E> =>
  Stream.scoped(
    Stream.fromPull(
      Effect.map(Stream.toPull(stream), (pull) => {
        let first = true
        return Effect.suspend(() => {
          const isFirst = first
          first = false
          if (!isFirst && (options.idleMs === undefined || options.onIdle === undefined)) return pull
          const onTimeout = isFirst ? options.onFirst : options.onIdle!
          return Effect.timeoutOrElse(pull, {
            duration: isFirst ? options.firstMs : options.idleMs!,
            orElse: () => Effect.fail(onTimeout())
          })
        })
      })
    )
  )
