/**
 * One sweep for everything that must end after a quiet time (a request body that stopped
 * arriving, a kept-alive connection with no request), instead of a timer per request: arming,
 * clearing and refreshing a socket timer on every request cost the chat path several percent of
 * its CPU (bench/NOTES.md), and Node refreshed it at every read and write besides.
 *
 * A watch gives its progress, a number that changes whenever something happened (bytes read or
 * written so far), or `"busy"` while it must count as active whatever moves. The sweep runs while
 * something is watched, every quarter of the shortest quiet time watched (at most once a second):
 * a watch whose progress changed, or that is busy, is quiet from that sweep on, so the time since
 * then is a lower bound of how long it has been quiet. `onQuiet` runs once, never before `quietMs`
 * and at most a quarter after it (or a second, whichever is less). The sweep's timer is unref'd:
 * it never keeps the process alive.
 */

export type Progress = () => number | "busy"

interface Watch {
  readonly progress: Progress
  readonly quietMs: number
  readonly onQuiet: () => void
  last: number | "busy"
  quietSince: number
}

const watched = new Set<Watch>()
let sweeper: ReturnType<typeof setInterval> | undefined
let sweepMs = Number.POSITIVE_INFINITY

const sweepEvery = (quietMs: number): number => Math.max(10, Math.min(1000, Math.floor(quietMs / 4)))

const stopSweeping = () => {
  clearInterval(sweeper)
  sweeper = undefined
  sweepMs = Number.POSITIVE_INFINITY
}

const sweep = () => {
  const now = Date.now()
  for (const watch of watched) {
    const progress = watch.progress()
    if (progress === "busy" || progress !== watch.last) {
      watch.last = progress
      watch.quietSince = now
    } else if (now - watch.quietSince >= watch.quietMs) {
      watched.delete(watch)
      watch.onQuiet()
    }
  }
  if (watched.size === 0) stopSweeping()
}

const startSweeping = (quietMs: number) => {
  const every = sweepEvery(quietMs)
  if (sweeper !== undefined && every >= sweepMs) return
  if (sweeper !== undefined) clearInterval(sweeper)
  sweepMs = every
  sweeper = setInterval(sweep, every)
  sweeper.unref()
}

/** Starts a watch; the returned function stops it (and the sweep, when it was the last). */
export const watchQuiet = (progress: Progress, quietMs: number, onQuiet: () => void): (() => void) => {
  const watch: Watch = { progress, quietMs, onQuiet, last: progress(), quietSince: Date.now() }
  watched.add(watch)
  startSweeping(quietMs)
  return () => {
    if (watched.delete(watch) && watched.size === 0) stopSweeping()
  }
}
