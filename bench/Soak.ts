import { runLoad } from "./Load.ts"
import type { Target } from "./Measure.ts"
import { type LiveHeap, liveHeap } from "./LiveHeap.ts"
import { rssMb } from "./Processes.ts"
import { leastSquaresMbPerMin, type RssSample, theilSenMbPerMin } from "./RssTrend.ts"
import type { Scenario } from "./Scenarios.ts"

/**
 * Start-up of the load (the heap and the socket pools grow to their working size): the first
 * minute, or a fifth of a shorter soak. The growth check fits every sample after it: V8's
 * old generation and the trimming make RSS swing by 50-100 MB over cycles of up to a few minutes,
 * so a shorter window (the second half, as before) can land on one rising edge.
 */
const warmUpOf = (durationS: number) => Math.min(60, durationS / 5)

export interface SoakResult {
  readonly seconds: number
  /** RSS every second. */
  readonly samples: ReadonlyArray<RssSample>
  readonly requests: number
  readonly errors: number
  readonly warmUpS: number
  /** Theil-Sen slope of every sample after the warm-up, MB per minute: the figure the growth check uses. */
  readonly slopeMbPerMin: number
  /** Least-squares slope of the same samples. */
  readonly leastSquaresMbPerMin: number
  /** Theil-Sen slope over the second half only (the window the check used before). */
  readonly secondHalfSlopeMbPerMin: number
  /** The idle process read before the soak and after it. */
  readonly settled: { readonly before: Settled; readonly after: Settled }
}

/**
 * The idle process after a full GC (the live heap: a leak shows there, capacity does not), with its
 * RSS once one round of the gateway's native-memory trim has run: what the process keeps, without
 * the swing of the collection cycles under load.
 */
export interface Settled extends LiveHeap {
  readonly rssMb: number
}

/** Longer than the gateway's trim interval (`server.malloc_trim_seconds`, 10 s by default). */
const settleMs = 11_000

/** A full GC, then RSS once the trim has run: the idle process's footprint, free of the sawtooth. */
const settle = async (pid: number): Promise<Settled> => {
  const live = await liveHeap(pid)
  await new Promise((resolve) => setTimeout(resolve, settleMs))
  return { ...live, rssMb: rssMb(pid) }
}

/** Steady mixed load (half plain, half streamed chat) on one target, RSS sampled every second. */
export const soak = async (target: Target, plain: Scenario, streamed: Scenario, durationS: number, connections: number) => {
  const before = await settle(target.pid)
  const samples: Array<RssSample> = [{ atS: 0, rssMb: rssMb(target.pid) }]
  const started = Date.now()
  const timer = setInterval(() => {
    samples.push({ atS: (Date.now() - started) / 1000, rssMb: rssMb(target.pid) })
  }, 1000)
  const load = (scenario: Scenario) =>
    runLoad({
      url: `http://127.0.0.1:${target.port}${scenario.path}`,
      body: scenario.body,
      headers: { "content-type": "application/json", ...target.headers },
      connections: connections / 2,
      durationS,
      ttfb: false,
      verify: scenario.verify,
      latencies: false
    })
  const [a, b] = await Promise.all([load(plain), load(streamed)])
  clearInterval(timer)
  const seconds = (Date.now() - started) / 1000
  const warmUpS = warmUpOf(durationS)
  const steady = samples.filter((s) => s.atS >= warmUpS)
  const after = await settle(target.pid)
  return {
    seconds,
    samples,
    requests: a.completed + b.completed,
    errors: a.errors + b.errors,
    warmUpS,
    slopeMbPerMin: theilSenMbPerMin(steady),
    leastSquaresMbPerMin: leastSquaresMbPerMin(steady),
    secondHalfSlopeMbPerMin: theilSenMbPerMin(samples.filter((s) => s.atS >= durationS / 2)),
    settled: { before, after }
  } satisfies SoakResult
}
