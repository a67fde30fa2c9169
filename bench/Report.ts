import type { Summary } from "./Measure.ts"
import type { OpenStreamsResult } from "./OpenStreams.ts"

export interface ScenarioResult {
  readonly scenario: string
  readonly connections: number
  /** Measured with the CPUs kept from halting while idle (see `keepAwake`). */
  readonly awake: boolean
  /** By target name; a missing gateway entry means the gateway has no endpoint for it. */
  readonly summaries: ReadonlyMap<string, Summary>
  readonly ttfb: boolean
}

const f = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? "-" : value.toFixed(digits)
const signed = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(3)}`
const ratio = (a: number, b: number | undefined) => (b === undefined ? "-" : `${((a / b) * 100).toFixed(0)}%`)

const header = [
  "scenario",
  "c",
  "target",
  "req/s",
  "p50 ms",
  "p99 ms",
  "TTFB p50 ms",
  "first content p50 ms",
  "CPU ms/req",
  "peak RSS MB",
  "+p50 vs direct",
  "+p50 vs floor",
  "+TTFB vs direct",
  "+TTFB vs floor",
  "+first content vs floor",
  "req/s vs direct",
  "req/s vs floor",
  "errors"
]

/** One markdown table: every scenario, concurrency and target, with the comparisons of the same run. */
export const resultsTable = (results: ReadonlyArray<ScenarioResult>, targets: ReadonlyArray<string>): string => {
  const rows: Array<Array<string>> = []
  for (const result of results) {
    const direct = result.summaries.get("direct")
    const floor = result.summaries.get("floor")
    for (const target of targets) {
      const s = result.summaries.get(target)
      const lead = [result.scenario, result.awake ? `${result.connections}, CPUs awake` : String(result.connections), target]
      if (s === undefined) {
        rows.push([...lead, "n/a (no endpoint yet)", ...header.slice(4).map(() => "")])
        continue
      }
      const vsDirect = target !== "direct"
      const vsFloor = target !== "direct" && target !== "floor"
      rows.push([
        ...lead,
        f(s.rps, 0),
        f(s.p50, 3),
        f(s.p99, 3),
        result.ttfb ? f(s.ttfbP50, 3) : "",
        result.ttfb ? f(s.ttfcP50, 3) : "",
        f(s.cpuMsPerRequest, 3),
        f(s.peakRssMb, 0),
        vsDirect ? signed(s.p50 - direct!.p50) : "",
        vsFloor ? signed(s.p50 - floor!.p50) : "",
        vsDirect && result.ttfb ? signed(s.ttfbP50! - direct!.ttfbP50!) : "",
        vsFloor && result.ttfb ? signed(s.ttfbP50! - floor!.ttfbP50!) : "",
        vsFloor && result.ttfb ? signed(s.ttfcP50! - floor!.ttfcP50!) : "",
        vsDirect ? ratio(s.rps, direct?.rps) : "",
        vsFloor ? ratio(s.rps, floor?.rps) : "",
        String(s.errors)
      ])
    }
  }
  const lines = [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`)
  return lines.join("\n")
}

export const openStreamsTable = (results: Iterable<readonly [string, OpenStreamsResult]>): string => {
  const lines = [
    "| target | streams open | RSS before MB | RSS with streams open MB | child processes' RSS MB | finished normally | errors |",
    "| --- | --- | --- | --- | --- | --- | --- |"
  ]
  for (const [name, r] of results) {
    lines.push(`| ${name} | ${r.opened} | ${f(r.rssBeforeMb, 0)} | ${f(r.rssOpenMb, 0)} | ${f(r.childrenRssMb, 0)} | ${r.completed} | ${r.errors} |`)
  }
  return lines.join("\n")
}

export interface Check {
  readonly target: string
  readonly measured: string
  readonly ok: boolean
}

/** The targets, judged on the same run's numbers. */
export const targetChecks = (
  results: ReadonlyArray<ScenarioResult>,
  open: OpenStreamsResult | undefined,
  openFresh: OpenStreamsResult | undefined
): Array<Check> => {
  const find = (scenario: string, c: number, awake = false) =>
    results.find((r) => r.scenario === scenario && r.connections === c && r.awake === awake)?.summaries
  const checks: Array<Check> = []
  // Chat is judged on its p50, streams on their time to first byte.
  const latencies = [
    { scenario: "chat", what: "added p50", of: (summary: Summary) => summary.p50 },
    { scenario: "stream", what: "added TTFB p50", of: (summary: Summary) => summary.ttfbP50! }
  ]
  for (const awake of [false, true]) {
    for (const { scenario, what, of } of latencies) {
      const r = find(scenario, 1, awake)
      const gw = r?.get("gateway")
      if (r === undefined || gw === undefined) continue
      const direct = of(r.get("direct")!)
      const added = of(gw) - direct
      // What the floor alone adds, for scale: on a VM whose idle CPUs halt it can exceed the target by itself.
      // The gateway sends nothing before the upstream's first content (a route that fails before it
      // falls back unseen) while the floor relays the role chunk at once: the time to the first
      // content, gateway against floor, is shown beside the first byte, for what a reader waits for.
      const contentAdded = (summary: Summary) => (summary.ttfcP50! - r.get("direct")!.ttfcP50!).toFixed(3)
      const content = scenario === "stream" && gw.ttfcP50 !== undefined
        ? `; to first content ${contentAdded(gw)} ms, floor ${contentAdded(r.get("floor")!)} ms`
        : ""
      checks.push({
        target: `${scenario} c=1${awake ? ", CPUs kept awake" : ""}: ${what} <= 0.3 ms`,
        measured: `${added.toFixed(3)} ms (floor ${(of(r.get("floor")!) - direct).toFixed(3)} ms${content})`,
        ok: added <= 0.3
      })
    }
  }
  for (const scenario of ["chat", "stream", "embeddings"]) {
    const r = find(scenario, 64)
    const gw = r?.get("gateway")
    const floor = r?.get("floor")
    if (gw === undefined || floor === undefined) continue
    const share = gw.rps / floor.rps
    checks.push({ target: `${scenario} c=64: req/s >= 50% of floor`, measured: `${(share * 100).toFixed(0)}%`, ok: share >= 0.5 })
  }
  if (openFresh !== undefined) {
    checks.push({ target: "1,000 open streams, fresh process: RSS <= 200 MB", measured: `${openFresh.rssOpenMb.toFixed(0)} MB`, ok: openFresh.rssOpenMb <= 200 })
  }
  if (open !== undefined) {
    checks.push({ target: "1,000 open streams, after the load runs: RSS <= 200 MB", measured: `${open.rssOpenMb.toFixed(0)} MB`, ok: open.rssOpenMb <= 200 })
  }
  const errors =
    results.reduce((n, r) => n + (r.summaries.get("gateway")?.errors ?? 0), 0) + (open?.errors ?? 0) + (openFresh?.errors ?? 0)
  checks.push({ target: "zero request errors (gateway)", measured: String(errors), ok: errors === 0 })
  return checks
}

export const checksTable = (checks: ReadonlyArray<Check>): string =>
  ["| target | measured | met |", "| --- | --- | --- |", ...checks.map((c) => `| ${c.target} | ${c.measured} | ${c.ok ? "yes" : "NO"} |`)].join("\n")
