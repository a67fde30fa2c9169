import { runLoad } from "./Load.ts"
import type { Target } from "./Measure.ts"
import { liveHeapMb } from "./LiveHeap.ts"
import { rssMb } from "./Processes.ts"
import type { Scenario } from "./Scenarios.ts"

export interface SoakResult {
  readonly seconds: number
  readonly samples: ReadonlyArray<{ readonly atS: number; readonly rssMb: number }>
  readonly requests: number
  readonly errors: number
  /** Least-squares slope of RSS over the second half of the soak, MB per minute. */
  readonly slopeMbPerMin: number
  /**
   * Theil-Sen slope over the second half (the median of the slopes between every two samples),
   * MB per minute: a GC dip or spike moves a least-squares fit a lot and this one hardly, so it
   * is the figure the growth check uses.
   */
  readonly robustSlopeMbPerMin: number
  /** Live JS heap after a full GC, before the soak and after it (a leak shows here, capacity does not). */
  readonly liveHeapMb: { readonly before: number; readonly after: number }
}

const theilSen = (points: ReadonlyArray<{ atS: number; rssMb: number }>) => {
  const slopes: Array<number> = []
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const dt = points[j]!.atS - points[i]!.atS
      if (dt > 0) slopes.push((points[j]!.rssMb - points[i]!.rssMb) / dt)
    }
  }
  if (slopes.length === 0) return Number.NaN
  slopes.sort((a, b) => a - b)
  const mid = Math.floor(slopes.length / 2)
  return (slopes.length % 2 === 1 ? slopes[mid]! : (slopes[mid - 1]! + slopes[mid]!) / 2) * 60
}

const slope = (points: ReadonlyArray<{ atS: number; rssMb: number }>) => {
  if (points.length < 2) return Number.NaN
  const mx = points.reduce((n, p) => n + p.atS, 0) / points.length
  const my = points.reduce((n, p) => n + p.rssMb, 0) / points.length
  const num = points.reduce((n, p) => n + (p.atS - mx) * (p.rssMb - my), 0)
  const den = points.reduce((n, p) => n + (p.atS - mx) ** 2, 0)
  return (num / den) * 60
}

/** Steady mixed load (half plain, half streamed chat) on one target, RSS sampled every 5 s. */
export const soak = async (target: Target, plain: Scenario, streamed: Scenario, durationS: number, connections: number) => {
  const liveBefore = await liveHeapMb(target.pid)
  const samples: Array<{ atS: number; rssMb: number }> = [{ atS: 0, rssMb: rssMb(target.pid) }]
  const started = Date.now()
  const timer = setInterval(() => {
    samples.push({ atS: Math.round((Date.now() - started) / 1000), rssMb: rssMb(target.pid) })
  }, 5_000)
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
  samples.push({ atS: Math.round((Date.now() - started) / 1000), rssMb: rssMb(target.pid) })
  const secondHalf = samples.filter((s) => s.atS >= durationS / 2)
  const liveAfter = await liveHeapMb(target.pid)
  return {
    seconds: (Date.now() - started) / 1000,
    samples,
    requests: a.completed + b.completed,
    errors: a.errors + b.errors,
    slopeMbPerMin: slope(secondHalf),
    robustSlopeMbPerMin: theilSen(secondHalf),
    liveHeapMb: { before: liveBefore, after: liveAfter }
  } satisfies SoakResult
}
