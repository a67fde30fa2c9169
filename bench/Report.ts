import { type Summary, throughputShare } from "./Measure.ts"
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
const ratio = (a: Summary, b: Summary | undefined) => (b === undefined ? "-" : `${(throughputShare(a, b) * 100).toFixed(0)}%`)

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
        vsDirect ? ratio(s, direct) : "",
        vsFloor ? ratio(s, floor) : "",
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
  readonly ok: boolean | "reported"
}

/**
 * The owner's targets, each stated against the floor (a bare `node:http` proxy) of the same run,
 * because absolute times vary by host: chat at concurrency 1 adds at most 0.1 ms p50 over the
 * floor and a stream's first byte at most 0.15 ms; at concurrency 64 chat keeps at least 60% of the
 * floor's throughput (aim 75%) and streams 75%, with their first byte p50 within 2x the floor's;
 * 1,000 open streams on a fresh process stay under 200 MB. Memory after the load is reported, not
 * judged: the default trades memory for CPU on purpose.
 */
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
    { scenario: "chat", what: "p50", limit: 0.1, of: (summary: Summary) => summary.p50 },
    { scenario: "stream", what: "TTFB p50", limit: 0.15, of: (summary: Summary) => summary.ttfbP50! }
  ]
  for (const awake of [false, true]) {
    for (const { scenario, what, limit, of } of latencies) {
      const r = find(scenario, 1, awake)
      const gw = r?.get("gateway")
      const floor = r?.get("floor")
      if (r === undefined || gw === undefined || floor === undefined) continue
      const added = of(gw) - of(floor)
      // The gateway sends nothing before the upstream's first content (a route that fails before it
      // falls back unseen) while the floor relays the role chunk at once: the time to the first
      // content over the floor's is shown beside the first byte, for what a reader waits for.
      const content = scenario === "stream" && gw.ttfcP50 !== undefined && floor.ttfcP50 !== undefined
        ? `; to first content +${(gw.ttfcP50 - floor.ttfcP50).toFixed(3)} ms`
        : ""
      checks.push({
        target: `${scenario} c=1${awake ? ", CPUs kept awake" : ""}: ${what} at most ${limit} ms over the floor`,
        measured: `+${added.toFixed(3)} ms (gateway ${of(gw).toFixed(3)}, floor ${of(floor).toFixed(3)} ms${content})`,
        ok: added <= limit
      })
    }
  }
  const shares = [
    { scenario: "chat", min: 0.6, aim: " (aim 75%)" },
    { scenario: "stream", min: 0.75, aim: "" },
    { scenario: "embeddings", min: 0.6, aim: "" }
  ]
  for (const { scenario, min, aim } of shares) {
    const r = find(scenario, 64)
    const gw = r?.get("gateway")
    const floor = r?.get("floor")
    if (gw === undefined || floor === undefined) continue
    const share = throughputShare(gw, floor)
    checks.push({
      target: `${scenario} c=64: req/s at least ${(min * 100).toFixed(0)}% of the floor's${aim}`,
      measured: `${(share * 100).toFixed(0)}%`,
      ok: share >= min
    })
    if (scenario === "stream" && gw.ttfbP50 !== undefined && floor.ttfbP50 !== undefined) {
      checks.push({
        target: "stream c=64: TTFB p50 within 2x the floor's",
        measured: `${(gw.ttfbP50 / floor.ttfbP50).toFixed(2)}x (gateway ${gw.ttfbP50.toFixed(3)}, floor ${floor.ttfbP50.toFixed(3)} ms)`,
        ok: gw.ttfbP50 <= 2 * floor.ttfbP50
      })
    }
  }
  if (openFresh !== undefined) {
    checks.push({ target: "1,000 open streams, fresh process: RSS under 200 MB", measured: `${openFresh.rssOpenMb.toFixed(0)} MB`, ok: openFresh.rssOpenMb < 200 })
  }
  if (open !== undefined) {
    checks.push({ target: "1,000 open streams, after the load runs (reported)", measured: `${open.rssOpenMb.toFixed(0)} MB`, ok: "reported" })
  }
  const errors =
    results.reduce((n, r) => n + (r.summaries.get("gateway")?.errors ?? 0), 0) + (open?.errors ?? 0) + (openFresh?.errors ?? 0)
  checks.push({ target: "zero request errors (gateway)", measured: String(errors), ok: errors === 0 })
  return checks
}

export const checksTable = (checks: ReadonlyArray<Check>): string =>
  ["| target | measured | met |", "| --- | --- | --- |", ...checks.map((c) => `| ${c.target} | ${c.measured} | ${c.ok === "reported" ? "-" : c.ok ? "yes" : "NO"} |`)].join("\n")
