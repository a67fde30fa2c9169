import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { interleaved, median, type Target, warmUp } from "./Measure.ts"
import { longStreams, type LongStreamsResult, longStreamsTable } from "./LongStreams.ts"
import { holdOpenStreams, type OpenStreamsResult } from "./OpenStreams.ts"
import { canKeepAwake, canPin, keepAwake, machineDescription, runScript, type Service, service, spawnNode, startScript, stealPercent, stealTicks, waitForHttp } from "./Processes.ts"
import { checksTable, openStreamsTable, resultsTable, type ScenarioResult, targetChecks } from "./Report.ts"
import { gatewayConfig, holdBody, scenarios } from "./Scenarios.ts"
import { type BenchKeys, billingChecks, keyedTargets, storageFamilies } from "./BilledTargets.ts"
import { soak, type SoakResult } from "./Soak.ts"

/**
 * `npm run bench`: the fake upstream, the floor proxy and the gateway as separate processes on
 * loopback; the gateway and the floor pinned to CPU 0, this process (autocannon) and the
 * upstream to CPU 1. Prints one markdown table and the target checks.
 *
 * Flags: --soak (adds a 5-minute soak; --soak-seconds S for another length), --quick (short rounds), --rounds N, --duration S,
 * --scenarios chat,stream,embeddings (also messages, messages-stream: the same upstream call through /v1/messages;
 * responses, responses-stream: a Responses call to OpenAI served natively, through the gateway and the floor alike;
 * responses-translated: a Responses request the gateway serves through a compatible server's chat completions, the
 * floor sending that chat call), --concurrency 1,64, --no-open-streams, --no-warm-up (skips the
 * warm-up to steady state), --bare undici,node,fetch
 * (adds the bare Effect server -> Effect client proxy with those clients as targets),
 * --no-awake (skips the concurrency-1 rounds with the CPUs kept from halting), --no-gateway,
 * --gateway-node-args "<args>", --compare name=<checkout> (another copy of the repository's gateway
 * as an extra target, for before/after figures), --keep (keep the temp dir), --json FILE (raw
 * results), --heap-snapshots (the gateway writes a heap snapshot before and with the 1,000 streams
 * open; pass --gateway-node-args --heapsnapshot-signal=SIGUSR2), --with-metrics (the gateway counts Prometheus metrics), --metrics-target (adds a
 * `gateway-metrics` target with metrics on beside the gateway), --access-log (adds `gateway-access-log`, the gateway
 * writing its JSON access log, and runs `gateway` with it off), --limits-target (adds `gateway-limits`, every key
 * under a rate limit it never reaches; --limits-redis redis://... adds `gateway-limits-redis`, the same with Redis).
 * Every gateway is also measured with a billed key and a rate-limited key (`<gateway>-billed`, `<gateway>-limited`,
 * BilledTargets.ts); --postgres URL adds `gateway-pg` on that database, --redis URL adds `gateway-redis` (and with
 * --postgres `gateway-pg-redis`).
 */

const here = NodePath.dirname(fileURLToPath(import.meta.url))
const root = NodePath.resolve(here, "..")
const argv = process.argv.slice(2)
const flag = (name: string) => argv.includes(`--${name}`)
const option = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}

// Pin this process (the load generator) to CPU 1 by re-running it under taskset.
if (process.env["BENCH_PINNED"] === undefined && canPin()) {
  const result = spawnSync("taskset", ["-c", "1", process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...argv], {
    stdio: "inherit",
    env: { ...process.env, BENCH_PINNED: "1" }
  })
  process.exit(result.status ?? 1)
}

const pinned = process.env["BENCH_PINNED"] === "1"
const gatewayCpu = pinned ? 0 : undefined
const loadCpu = pinned ? 1 : undefined
const quick = flag("quick")
const rounds = Number(option("rounds") ?? (quick ? 1 : 5))
const durationS = Number(option("duration") ?? (quick ? 3 : 5))
const warmupS = quick ? 2 : 3
const concurrencies = (option("concurrency") ?? "1,64").split(",").map(Number)
// Concurrency 1 is measured a second time with both CPUs kept from halting while idle.
const awake = pinned && !flag("no-awake") && canKeepAwake()
const wanted = new Set((option("scenarios") ?? "chat,stream,embeddings").split(","))
const log = (line: string) => process.stderr.write(`${line}\n`)

const prefixed = <A>(when: string, map: ReadonlyMap<string, A>): Array<[string, A]> =>
  [...map].map(([name, value]) => [`${name}, ${when}`, value])

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** How much of the machine a hypervisor took away while measuring: figures from a VM with high steal vary run to run. */
const stealLine = (perSummary: ReadonlyArray<number>, whole: number): string =>
  `CPU steal (time the hypervisor gave to other guests, share of all CPU time): ${whole.toFixed(1)}% over the whole run` +
  (perSummary.length === 0
    ? "."
    : `; per target and scenario (median over its rounds) ${median(perSummary).toFixed(1)}% typical, ${Math.max(...perSummary).toFixed(1)}% at most.`)

const dir = mkdtempSync(NodePath.join(tmpdir(), "gateway-bench-"))
const services: Array<Service> = []
const script = (name: string) => NodePath.join(here, name)

const stealAtStart = stealTicks()
try {
  log(`machine: ${machineDescription()}; ${pinned ? "gateway and floor on CPU 0, load and upstream on CPU 1" : "NOT pinned (taskset or a second CPU missing)"}`)
  const upstream = await startScript("upstream", [script("FakeUpstream.ts")], { cpu: loadCpu, logFile: NodePath.join(dir, "upstream.log") })
  services.push(upstream)
  const floor = await startScript("floor", [script("FloorProxy.ts"), String(upstream.port)], { cpu: gatewayCpu, logFile: NodePath.join(dir, "floor.log") })
  services.push(floor)

  const configPath = NodePath.join(dir, "gateway.yaml")
  writeFileSync(configPath, JSON.stringify(gatewayConfig(upstream.port, { withMetrics: flag("with-metrics") }), null, 2))
  const dataDir = NodePath.join(dir, "data")
  const env = { DATA_DIR: dataDir, GATEWAY_CONFIG: configPath, HOST: "127.0.0.1", LOG_LEVEL: "warn" }
  const keys = runScript<BenchKeys>([script("CreateKey.ts")], env)
  const { secret } = keys

  const nodeArgs = (option("gateway-node-args") ?? "").split(" ").filter((a) => a !== "")
  // The gateway runs exactly as `npm start` runs it: the node flags and entry of its start script.
  const startCommand = (checkout: string): Array<string> => {
    const pkg = JSON.parse(readFileSync(NodePath.join(checkout, "package.json"), "utf8")) as { scripts: { start: string } }
    const [node, ...rest] = pkg.scripts.start.split(" ").filter((a) => a !== "")
    if (node !== "node") throw new Error(`${checkout}: the start script does not run node: ${pkg.scripts.start}`)
    const entry = rest.pop()!
    return [...rest, ...nodeArgs, NodePath.join(checkout, entry)]
  }
  // A gateway from `checkout` (a copy of the repository), with its own storage. It is started
  // twice and measured the second time: the first start after an install or a source change fills
  // Node's compile cache and leaves the TypeScript stripper resident (about 20 MB more RSS), which
  // every later start skips.
  const startGateway = async (name: string, checkout: string, keySecret: string, dataDirectory: string, extraEnv: Record<string, string> = {}) => {
    const port = await freePort()
    const logFile = NodePath.join(dir, `${name}.log`)
    const launch = async () => {
      const child = spawnNode(startCommand(checkout), {
        cpu: gatewayCpu,
        env: { ...env, DATA_DIR: dataDirectory, PORT: String(port), ...extraEnv },
        logFile
      })
      const started = service(name, child, port)
      services.push(started)
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, child, 60_000, logFile)
      return started
    }
    const first = await launch()
    await first.stop()
    services.splice(services.indexOf(first), 1)
    const started = await launch()
    return { name, port, pid: started.pid, headers: { authorization: `Bearer ${keySecret}` } } satisfies Target
  }

  const auth = { authorization: `Bearer ${secret}` }
  const targets: Array<Target> = [
    { name: "direct", port: upstream.port, pid: upstream.pid, headers: auth },
    { name: "floor", port: floor.port, pid: floor.pid, headers: auth }
  ]
  // --access-log: the gateway without its access log, and beside it one writing a JSON line per
  // request (to its log file), measured in the same run.
  const accessLog = flag("access-log")
  const quiet: Record<string, string> = accessLog ? { ACCESS_LOG: "off" } : {}
  if (!flag("no-gateway")) {
    const gateway = await startGateway("gateway", root, secret, dataDir, quiet)
    targets.push(gateway, ...keyedTargets(gateway, keys))
    for (const family of storageFamilies(option("postgres"), option("redis"), `bench-${process.pid}-`)) {
      const data = NodePath.join(dir, `data-${family.name}`)
      const familyKeys = runScript<BenchKeys>([script("CreateKey.ts")], { ...env, DATA_DIR: data, ...family.env })
      const started = await startGateway(family.name, root, familyKeys.secret, data, { ...family.env, ...quiet })
      targets.push(started, ...keyedTargets(started, familyKeys))
    }
  }
  if (accessLog) {
    const logged = NodePath.join(dir, "data-access-log")
    const other = runScript<{ secret: string }>([script("CreateKey.ts")], { ...env, DATA_DIR: logged })
    targets.push(await startGateway("gateway-access-log", root, other.secret, logged, { ACCESS_LOG: "json", LOG_LEVEL: "info" }))
  }
  // --metrics-target: beside the gateway, one with `metrics.enabled` (counting every request for
  // /metrics), measured in the same run.
  if (flag("metrics-target")) {
    const counted = NodePath.join(dir, "data-metrics")
    const countedConfig = NodePath.join(dir, "gateway-metrics.yaml")
    writeFileSync(countedConfig, JSON.stringify(gatewayConfig(upstream.port, { withMetrics: true }), null, 2))
    const other = runScript<{ secret: string }>([script("CreateKey.ts")], { ...env, DATA_DIR: counted, GATEWAY_CONFIG: countedConfig })
    targets.push(await startGateway("gateway-metrics", root, other.secret, counted, { GATEWAY_CONFIG: countedConfig, ...(accessLog ? { ACCESS_LOG: "off" } : {}) }))
  }
  // --limits-target: a gateway whose keys all have a rate limit they never reach (windows in the
  // process, as on embedded storage), and with --limits-redis one more keeping them in Redis.
  if (flag("limits-target")) {
    const limitedConfig = NodePath.join(dir, "gateway-limits.yaml")
    writeFileSync(limitedConfig, JSON.stringify(gatewayConfig(upstream.port, { withLimits: true }), null, 2))
    const variants: Array<[string, Record<string, string>]> = [["gateway-limits", {}]]
    const redis = option("limits-redis")
    if (redis !== undefined) variants.push(["gateway-limits-redis", { REDIS_URL: redis, REDIS_PREFIX: `bench-${process.pid}:` }])
    for (const [name, extra] of variants) {
      const data = NodePath.join(dir, `data-${name}`)
      const other = runScript<{ secret: string }>([script("CreateKey.ts")], { ...env, DATA_DIR: data, GATEWAY_CONFIG: limitedConfig })
      targets.push(await startGateway(name, root, other.secret, data, { GATEWAY_CONFIG: limitedConfig, ...extra, ...(accessLog ? { ACCESS_LOG: "off" } : {}) }))
    }
  }
  // --compare name=dir: another checkout's gateway measured alongside (before/after a change).
  for (const spec of argv.flatMap((a, i) => (argv[i - 1] === "--compare" ? [a] : []))) {
    const [name, checkout] = spec.split("=") as [string, string]
    const otherData = NodePath.join(dir, `data-${name}`)
    const other = runScript<{ secret: string }>([script("CreateKey.ts")], { ...env, DATA_DIR: otherData })
    targets.push(await startGateway(name, NodePath.resolve(checkout), other.secret, otherData))
  }
  for (const client of (option("bare") ?? "").split(",").filter((c) => c !== "")) {
    const name = `effect-bare-${client}`
    const bare = await startScript(name, [script("BareEffectProxy.ts"), String(upstream.port), client], {
      cpu: gatewayCpu,
      logFile: NodePath.join(dir, `${name}.log`)
    })
    services.push(bare)
    targets.push({ name, port: bare.port, pid: bare.pid, headers: auth })
  }
  const names = targets.map((t) => t.name)

  // 1,000 streams held open: on the fresh processes, and again after the load runs (when the
  // heap carries what the load left behind).
  const holdStreams = async (when: string, into: Map<string, OpenStreamsResult>) => {
    for (const target of targets.filter((t) => t.name !== "direct" && !t.name.startsWith("effect-bare"))) {
      const isGateway = target.name !== "floor"
      const result = await holdOpenStreams({
        pid: target.pid,
        port: target.port,
        path: isGateway ? "/v1/chat/completions" : "/hold/v1/chat/completions",
        headers: { "content-type": "application/json", ...target.headers },
        body: holdBody,
        count: 1000,
        upstreamPort: upstream.port,
        heapSnapshots: isGateway && flag("heap-snapshots")
      })
      log(`  1,000 open streams via ${target.name} (${when}): ${result.rssOpenMb.toFixed(0)} MB RSS, ${result.errors} errors`)
      into.set(target.name, result)
    }
  }
  const openFresh = new Map<string, OpenStreamsResult>()
  const open = new Map<string, OpenStreamsResult>()
  if (!flag("no-open-streams")) await holdStreams("fresh", openFresh)

  const servedBy = (t: Target, scenario: (typeof scenarios)[number]) =>
    t.name === "direct" || t.name === "floor" || t.name.startsWith("effect-bare") || scenario.gatewayEndpoint
  // Every target reaches its steady state on every scenario before the first measured round.
  const warmUps: Array<string> = []
  if (!flag("no-warm-up")) {
    for (const target of targets) {
      for (const scenario of scenarios.filter((s) => wanted.has(s.name) && servedBy(target, s))) {
        const cpu = await warmUp(target, scenario, 64, { roundS: quick ? 2 : 3, maxRounds: quick ? 4 : 12, tolerance: 0.05 })
        const line = `${target.name} ${scenario.name}: ${cpu.map((c) => c.toFixed(3)).join(", ")} ms CPU/req`
        log(`  warm-up ${line}`)
        warmUps.push(line)
      }
    }
  }

  const results: Array<ScenarioResult> = []
  for (const scenario of scenarios.filter((s) => wanted.has(s.name))) {
    const applicable = targets.filter((t) => servedBy(t, scenario))
    for (const connections of concurrencies) {
      const summaries = await interleaved(applicable, scenario, connections, { rounds, durationS, warmupS, log })
      results.push({ scenario: scenario.name, connections, awake: false, summaries, ttfb: scenario.ttfb })
      if (connections !== 1 || !awake) continue
      const loops = keepAwake([gatewayCpu!, loadCpu!])
      try {
        const kept = await interleaved(applicable, scenario, connections, { rounds, durationS, warmupS, log: (line) => log(`${line} (CPUs awake)`) })
        results.push({ scenario: scenario.name, connections, awake: true, summaries: kept, ttfb: scenario.ttfb })
      } finally {
        await loops.stop()
      }
    }
  }
  if (!flag("no-open-streams")) await holdStreams("after load", open)

  // The cost of a chunk must not depend on how many came before it.
  let long: LongStreamsResult | undefined
  const gatewayTarget = targets.find((t) => t.name === "gateway")
  if (!flag("no-long-streams") && gatewayTarget !== undefined) {
    log("long streams: 100, 400 and 1,600 content chunks at concurrency 8 on the gateway")
    long = await longStreams(gatewayTarget, { connections: 8, durationS, warmupS, log })
  }

  let soaked: SoakResult | undefined
  if (flag("soak")) {
    const seconds = Number(option("soak-seconds") ?? 300)
    log(`soak: ${seconds} s of mixed chat and streaming at concurrency 64 on the gateway`)
    soaked = await soak(targets.find((t) => t.name === "gateway")!, scenarios[0]!, scenarios[1]!, seconds, 64)
  }

  const out: Array<string> = [
    `Machine: ${machineDescription()}. ${pinned ? "Gateway and floor pinned to CPU 0; autocannon and the fake upstream on CPU 1." : "Not pinned."}`,
    `Warm-up: every target, on every scenario at concurrency 64, in ${quick ? 2 : 3} s rounds until the CPU per request of a round is within 5% of the round before (at least 3 rounds, at most ${quick ? 4 : 12}).`,
    `Rounds: ${rounds} x ${durationS} s per target (after a ${warmupS} s warm-up at the round's concurrency), interleaved; medians over rounds, CPU over all requests.`,
    stealLine(results.flatMap((r) => [...r.summaries.values()].map((summary) => summary.stealPct)), stealPercent(stealAtStart, stealTicks())),
    ...(awake
      ? ["Concurrency 1 is measured twice: as the machine is, and with both CPUs kept from halting while idle (an idle-priority busy loop on each, which any request preempts)."]
      : []),
    "",
    resultsTable(results, names)
  ]
  if (warmUps.length > 0) out.push("", "Warm-up rounds (CPU ms per request, in order):", "", ...warmUps.map((line) => `- ${line}`))
  if (open.size > 0) {
    out.push(
      "",
      "1,000 concurrent open streams (held by the upstream after three chunks), on fresh processes and after the load runs:",
      "",
      openStreamsTable([...prefixed("fresh", openFresh), ...prefixed("after load", open)])
    )
  }
  if (long !== undefined) {
    out.push("", "Long streams through the gateway (concurrency 8):", "", longStreamsTable(long))
  }
  if (soaked !== undefined) {
    const { samples, warmUpS } = soaked
    const { before, after } = soaked.settled
    const steady = samples.filter((s) => s.atS >= warmUpS).map((s) => s.rssMb)
    out.push(
      "",
      `Soak: ${soaked.seconds.toFixed(0)} s, ${soaked.requests} requests, ${soaked.errors} errors; RSS (read every second) every 10 s (MB): ` +
        samples.filter((_, i) => i % 10 === 0).map((s) => s.rssMb.toFixed(0)).join(" ") +
        `; after the first ${warmUpS.toFixed(0)} s between ${Math.min(...steady).toFixed(0)} and ${Math.max(...steady).toFixed(0)} MB, slope ${soaked.slopeMbPerMin.toFixed(2)} MB/min (Theil-Sen), ` +
        `${soaked.leastSquaresMbPerMin.toFixed(2)} MB/min (least squares); second half only ${soaked.secondHalfSlopeMbPerMin.toFixed(2)} MB/min (Theil-Sen)` +
        `; live JS heap after a full GC ${before.usedMb.toFixed(1)} MB before the soak, ${after.usedMb.toFixed(1)} MB after it` +
        `; RSS idle after that GC and a trim ${before.rssMb.toFixed(1)} MB before the soak, ${after.rssMb.toFixed(1)} MB after it` +
        `; after the same GC V8 kept ${before.committedMb.toFixed(1)} and ${after.committedMb.toFixed(1)} MB for the JS heap, ` +
        `and JS objects held ${before.externalMb.toFixed(1)} and ${after.externalMb.toFixed(1)} MB outside it`
    )
  }
  const checks = [...targetChecks(results, open.get("gateway"), openFresh.get("gateway")), ...billingChecks(results)]
  const [early, late] = long?.marginalUs ?? []
  if (early !== undefined && late !== undefined) {
    checks.push({
      target: "stream CPU per chunk independent of the chunks before it (added cost per chunk, 400-1,600 vs 100-400, within 25%)",
      measured: `${late.usPerChunk.toFixed(1)} vs ${early.usPerChunk.toFixed(1)} us`,
      ok: Math.abs(late.usPerChunk - early.usPerChunk) <= 0.25 * early.usPerChunk
    })
  }
  if (soaked !== undefined) {
    const { before, after } = soaked.settled
    // What a soak may add before it counts as growth: 1 MB a minute, at least 2 MB (caches a short soak fills).
    const allowedGrowthMb = Math.max(2, soaked.seconds / 60)
    checks.push(
      {
        target: `soak: no RSS growth (Theil-Sen slope of RSS after the first ${soaked.warmUpS.toFixed(0)} s <= 1 MB/min)`,
        measured: `${soaked.slopeMbPerMin.toFixed(2)} MB/min (least squares ${soaked.leastSquaresMbPerMin.toFixed(2)}; second half only ${soaked.secondHalfSlopeMbPerMin.toFixed(2)})`,
        ok: soaked.slopeMbPerMin <= 1
      },
      {
        target: "soak: live JS heap after a full GC grows <= 1 MB per minute of soak (at least 2 MB, for caches a short soak fills)",
        measured: `${before.usedMb.toFixed(1)} -> ${after.usedMb.toFixed(1)} MB`,
        ok: after.usedMb - before.usedMb <= allowedGrowthMb
      },
      {
        target: "soak: RSS of the idle process after a full GC and a trim grows <= 1 MB per minute of soak (at least 2 MB)",
        measured: `${before.rssMb.toFixed(1)} -> ${after.rssMb.toFixed(1)} MB`,
        ok: after.rssMb - before.rssMb <= allowedGrowthMb
      },
      { target: "soak: zero request errors", measured: String(soaked.errors), ok: soaked.errors === 0 }
    )
  }
  out.push("", "Targets:", "", checksTable(checks))
  process.stdout.write(`${out.join("\n")}\n`)
  const json = option("json")
  if (json !== undefined) {
    const plain = results.map((r) => ({ ...r, summaries: Object.fromEntries(r.summaries) }))
    writeFileSync(json, JSON.stringify({ machine: machineDescription(), results: plain, openFresh: Object.fromEntries(openFresh), open: Object.fromEntries(open), soak: soaked }, null, 2))
  }
} finally {
  for (const s of services.reverse()) await s.stop()
  if (!flag("keep")) rmSync(dir, { recursive: true, force: true })
  else log(`kept ${dir}`)
}
