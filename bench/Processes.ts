import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createInterface } from "node:readline"

/** Whether `taskset` (util-linux) can pin processes, and the machine has a second core for the load. */
export const canPin = (): boolean => spawnSync("taskset", ["-V"]).status === 0 && cpuCount() >= 2

export const cpuCount = (): number => {
  // `--all`: the machine's cores, not the ones this (possibly pinned) process may use.
  const online = spawnSync("nproc", ["--all"], { encoding: "utf8" })
  return Number(online.stdout.trim()) || 1
}

export interface Service {
  readonly name: string
  readonly pid: number
  readonly port: number
  readonly child: ChildProcess
  readonly stop: () => Promise<void>
}

/**
 * `node <args>`, pinned to `cpu` when pinning is possible; stderr and stdout go to `logFile`. Both
 * pipes are drained: a child whose output nobody reads blocks once the pipe's buffer is full.
 */
export const spawnNode = (args: ReadonlyArray<string>, options: { cpu: number | undefined; env?: NodeJS.ProcessEnv; logFile: string }) => {
  const command = options.cpu === undefined ? process.execPath : "taskset"
  const argv = options.cpu === undefined ? [...args] : ["-c", String(options.cpu), process.execPath, ...args]
  const child = spawn(command, argv, { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] })
  const log = createWriteStream(options.logFile, { flags: "a" })
  // Two sources: neither may end the file for the other.
  child.stderr!.pipe(log, { end: false })
  child.stdout!.pipe(log, { end: false })
  child.once("close", () => log.end())
  return child
}

const stopChild = (child: ChildProcess, graceMs = 10_000) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGINT")
  })

/** Whether idle-priority busy loops can be started (util-linux `chrt`). */
export const canKeepAwake = (): boolean => spawnSync("chrt", ["--version"]).status === 0

/**
 * Keeps `cpus` from halting while idle: one busy loop per CPU at SCHED_IDLE priority, which
 * any other runnable process preempts at once. On a VM a halted virtual CPU takes a trip
 * through the hypervisor to wake, tens to hundreds of microseconds per hop; at concurrency 1
 * every request crosses the idle CPUs several times, so without this the figures mostly
 * measure the host.
 */
export const keepAwake = (cpus: ReadonlyArray<number>) => {
  const loops = cpus.map((cpu) =>
    // The loop ends by itself when this process is gone, however it ends.
    spawn("taskset", ["-c", String(cpu), "chrt", "--idle", "0", "sh", "-c", `while kill -0 ${process.pid} 2>/dev/null; do :; done`], {
      stdio: "ignore"
    })
  )
  return { stop: () => Promise.all(loops.map((loop) => stopChild(loop, 2_000))).then(() => undefined) }
}

/** A helper script that prints `{"port":N}` as its first stdout line once it listens. */
export const startScript = async (name: string, args: ReadonlyArray<string>, options: { cpu: number | undefined; logFile: string }) => {
  const child = spawnNode(args, options)
  const lines = createInterface({ input: child.stdout! })
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code} before listening; see ${options.logFile}`)))
    lines.once("line", (line) => resolve((JSON.parse(line) as { port: number }).port))
  })
  return { name, pid: child.pid!, port, child, stop: () => stopChild(child) } satisfies Service
}

/** Runs a script to completion and returns its first stdout line parsed as JSON. */
export const runScript = <A>(args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): A => {
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`)
  return JSON.parse(result.stdout.split("\n")[0]!) as A
}

/** Polls `url` until it answers 200. */
export const waitForHttp = async (url: string, child: ChildProcess, timeoutMs: number, logFile: string) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the process behind ${url} exited with ${child.exitCode}; see ${logFile}`)
    try {
      const res = await fetch(url)
      if (res.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms; see ${logFile}`)
}

export const service = (name: string, child: ChildProcess, port: number): Service => ({
  name,
  pid: child.pid!,
  port,
  child,
  stop: () => stopChild(child)
})

const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** User + system CPU time of a process (all its threads), in ms. */
export const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // After the command name: field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
}

/** Live child processes of `pid` (the gateway's embedded storage process, for one). */
export const childPids = (pid: number): Array<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(" ").filter((c) => c !== "").map(Number)
    )
  } catch {
    return []
  }
}

/** CPU of a process and every live descendant: work the gateway hands to a child still counts. */
export const treeCpuMs = (pid: number): number => {
  let total = 0
  try {
    total = cpuMs(pid)
  } catch {
    return 0
  }
  for (const child of childPids(pid)) total += treeCpuMs(child)
  return total
}

/** RSS of a process's live children, summed (0 when it has none). */
export const childrenRssMb = (pid: number): number =>
  childPids(pid).reduce((n, child) => {
    try {
      return n + rssMb(child) + childrenRssMb(child)
    } catch {
      return n
    }
  }, 0)

const statusKb = (pid: number, key: string): number => {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1])
}

export const rssMb = (pid: number): number => statusKb(pid, "VmRSS") / 1024
export const peakRssMb = (pid: number): number => statusKb(pid, "VmHWM") / 1024

/** Resets VmHWM to the current RSS (Linux >= 4.0), so the next peak is this phase's own; false if refused. */
export const resetPeakRss = (pid: number): boolean => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5")
    return true
  } catch {
    return false
  }
}

/**
 * CPU time the hypervisor gave to someone else (`steal` in /proc/stat), over all CPUs, in clock
 * ticks, with the total ticks elapsed; zero steal on bare metal. On a shared VM it inflates
 * latency and cuts throughput without showing up in any process's own CPU time.
 */
export const stealTicks = (): { readonly steal: number; readonly total: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
  return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) }
}

/** Steal as a share of the CPU time elapsed between two readings, in percent. */
export const stealPercent = (before: ReturnType<typeof stealTicks>, after: ReturnType<typeof stealTicks>): number =>
  after.total === before.total ? 0 : (100 * (after.steal - before.steal)) / (after.total - before.total)

export const machineDescription = (): string => {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8")
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown CPU"
  const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0)
  const kernel = spawnSync("uname", ["-sr"], { encoding: "utf8" }).stdout.trim()
  return `${model}, ${cpuCount()} cores, ${(memKb / 1024 / 1024).toFixed(1)} GB RAM, ${kernel}, Node ${process.version}`
}
