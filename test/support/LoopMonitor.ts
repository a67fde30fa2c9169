/**
 * Preloaded (`node --import`) into a gateway process under test: measures how long its own event
 * loop is held and answers over the IPC channel. Plain Node with type stripping runs this file:
 * erasable TypeScript only.
 *
 * Two figures. `delayMaxMs` is `monitorEventLoopDelay`'s: how late a 10 ms timer fired, which on
 * a loaded machine also counts the time the OS did not run the process at all. `heldMaxMs` is the
 * main thread's own CPU time between two firings of a 10 ms timer: the longest stretch the loop
 * spent running code (or collecting garbage) without coming back to its timers. That is the one
 * a request can cause, and the one hostile-input tests assert on; scheduling noise cannot raise it.
 * `cpuMs` is the main thread's CPU time since the reset, all turns together: a parse that yields
 * between small steps holds no single turn long, yet takes the loop from every other request.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"

const histogram = monitorEventLoopDelay({ resolution: 10 })
histogram.enable()

const cpuMs = () => {
  const usage = process.threadCpuUsage()
  return (usage.user + usage.system) / 1000
}
let heldMaxMs = 0
let lastCpu = cpuMs()
let startCpu = lastCpu
setInterval(() => {
  const now = cpuMs()
  heldMaxMs = Math.max(heldMaxMs, now - lastCpu)
  lastCpu = now
}, 10).unref()

process.on("message", (message: unknown) => {
  if (message === "loop:reset") {
    histogram.reset()
    heldMaxMs = 0
    lastCpu = cpuMs()
    startCpu = lastCpu
    process.send?.({ _tag: "loop:reset" })
  } else if (message === "loop:read") {
    // Nanoseconds; a histogram with no sample yet reports a zero maximum.
    process.send?.({ _tag: "loop:read", delayMaxMs: histogram.max / 1e6, heldMaxMs, cpuMs: cpuMs() - startCpu })
  }
})
// The channel must not keep a gateway that was asked to stop alive.
process.channel?.unref()
