import { type LoadResult, runLoad } from "./Load.ts"
import { cpuMs, peakRssMb, resetPeakRss, rssMb, stealPercent, stealTicks, treeCpuMs } from "./Processes.ts"
import { requestFor, type Scenario } from "./Scenarios.ts"

/** Something the load is aimed at: the upstream itself, the floor proxy or the gateway. */
export interface Target {
  readonly name: string
  readonly port: number
  /** The process whose CPU and memory are charged to this target. */
  readonly pid: number
  readonly headers: Record<string, string>
}

export interface Phase extends LoadResult {
  readonly cpuMsPerRequest: number
  /** The part of it spent in child processes (the embedded storage process). */
  readonly childCpuMsPerRequest: number
  readonly peakRssMb: number
  /** CPU steal on the machine during the phase, in percent of all CPU time. */
  readonly stealPct: number
}

/** Time left after each phase for deferred work (usage flush, GC) to land in that phase's CPU. */
const settleMs = 1200

export const measure = async (target: Target, scenario: Scenario, connections: number, durationS: number): Promise<Phase> => {
  const exactPeak = resetPeakRss(target.pid)
  let sampledPeak = rssMb(target.pid)
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, rssMb(target.pid))
  }, 250)
  const before = treeCpuMs(target.pid)
  const ownBefore = cpuMs(target.pid)
  const stealBefore = stealTicks()
  const request = requestFor(target, scenario)
  const result = await runLoad({
    url: `http://127.0.0.1:${target.port}${request.path}`,
    body: request.body,
    headers: { "content-type": "application/json", ...target.headers, ...request.headers },
    connections,
    durationS,
    ttfb: scenario.ttfb,
    verify: request.verify
  })
  await new Promise((r) => setTimeout(r, settleMs))
  clearInterval(sampler)
  const after = treeCpuMs(target.pid)
  const own = cpuMs(target.pid) - ownBefore
  return {
    ...result,
    cpuMsPerRequest: result.completed === 0 ? Number.NaN : (after - before) / result.completed,
    childCpuMsPerRequest: result.completed === 0 ? Number.NaN : (after - before - own) / result.completed,
    peakRssMb: exactPeak ? peakRssMb(target.pid) : sampledPeak,
    stealPct: stealPercent(stealBefore, stealTicks())
  }
}

export interface Summary {
  readonly rounds: number
  readonly rps: number
  /** Each round's req/s, in round order (see `throughputShare`). */
  readonly rpsByRound: ReadonlyArray<number>
  readonly p50: number
  readonly p99: number
  readonly ttfbP50: number | undefined
  readonly ttfcP50: number | undefined
  readonly cpuMsPerRequest: number
  readonly peakRssMb: number
  readonly errors: number
  readonly completed: number
  /** Median CPU steal over the rounds, in percent. */
  readonly stealPct: number
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Medians over rounds for rates and latencies; CPU over all requests; the highest peak. */
export const summarise = (phases: ReadonlyArray<Phase>): Summary => {
  const completed = phases.reduce((n, p) => n + p.completed, 0)
  const cpu = phases.reduce((n, p) => n + p.cpuMsPerRequest * p.completed, 0)
  const ttfb = phases.map((p) => p.ttfbP50).filter((v): v is number => v !== undefined)
  const ttfc = phases.map((p) => p.ttfcP50).filter((v): v is number => v !== undefined)
  return {
    rounds: phases.length,
    rps: median(phases.map((p) => p.rps)),
    rpsByRound: phases.map((p) => p.rps),
    p50: median(phases.map((p) => p.p50)),
    p99: median(phases.map((p) => p.p99)),
    ttfbP50: ttfb.length === 0 ? undefined : median(ttfb),
    ttfcP50: ttfc.length === 0 ? undefined : median(ttfc),
    cpuMsPerRequest: completed === 0 ? Number.NaN : cpu / completed,
    peakRssMb: Math.max(...phases.map((p) => p.peakRssMb)),
    errors: phases.reduce((n, p) => n + p.errors, 0),
    completed,
    stealPct: median(phases.map((p) => p.stealPct))
  }
}

/**
 * `a`'s throughput as a share of `b`'s: the median of the rounds' ratios, each of two targets
 * measured within seconds of each other in one round. The VM's speed drifts two- or threefold
 * within a minute, longer than a round of every target takes, so a ratio of the two medians
 * can set one target's fast round against the other's slow one. Without rounds in common (a
 * summary from elsewhere), the ratio of the medians.
 */
export const throughputShare = (a: Summary, b: Summary): number => {
  const rounds = a.rpsByRound.length
  if (rounds === 0 || rounds !== b.rpsByRound.length) return a.rps / b.rps
  return median(a.rpsByRound.map((rps, i) => rps / b.rpsByRound[i]!))
}

/**
 * Brings a target to its steady state before anything is measured: rounds of `scenario` at
 * `connections` until the CPU per request of a round is within `tolerance` of the round before
 * (at most `maxRounds`). A JIT-compiled server keeps getting cheaper for tens of seconds after
 * start, the more code it runs the longer; a short warm-up charges that to whichever scenario
 * happens to run first. Returns the CPU per request of each round.
 */
export const warmUp = async (
  target: Target,
  scenario: Scenario,
  connections: number,
  options: { readonly roundS: number; readonly maxRounds: number; readonly tolerance: number }
): Promise<Array<number>> => {
  const cpu: Array<number> = []
  for (let round = 0; round < options.maxRounds; round++) {
    cpu.push((await measure(target, scenario, connections, options.roundS)).cpuMsPerRequest)
    const [previous, last] = cpu.slice(-2)
    if (cpu.length >= 3 && Math.abs(last! - previous!) <= options.tolerance * previous!) break
  }
  return cpu
}

/**
 * Runs every target against one scenario and concurrency: a warm-up round, then `rounds`
 * rounds in a rotating order so drift in the machine hits every target alike.
 */
export const interleaved = async (
  targets: ReadonlyArray<Target>,
  scenario: Scenario,
  connections: number,
  options: { readonly rounds: number; readonly durationS: number; readonly warmupS: number; readonly log: (line: string) => void }
): Promise<Map<string, Summary>> => {
  for (const target of targets) await measure(target, scenario, connections, options.warmupS)
  const phases = new Map<string, Array<Phase>>(targets.map((t) => [t.name, []]))
  for (let round = 0; round < options.rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!)
    for (const target of order) {
      const phase = await measure(target, scenario, connections, options.durationS)
      phases.get(target.name)!.push(phase)
      options.log(
        `  ${scenario.name} c=${connections} round ${round + 1} ${target.name}: ${phase.rps.toFixed(0)} req/s, p50 ${phase.p50.toFixed(3)} ms` +
          (phase.ttfbP50 === undefined ? "" : `, ttfb ${phase.ttfbP50.toFixed(3)} ms, first content ${phase.ttfcP50!.toFixed(3)} ms`) +
          `, cpu ${phase.cpuMsPerRequest.toFixed(3)} ms/req (children ${phase.childCpuMsPerRequest.toFixed(3)}), errors ${phase.errors}, steal ${phase.stealPct.toFixed(1)}%`
      )
    }
  }
  return new Map([...phases].map(([name, list]) => [name, summarise(list)]))
}
