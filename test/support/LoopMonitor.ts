/**
 * Preloaded (`node --import`) into a gateway process under test: measures how long its own event
 * loop is held, with `monitorEventLoopDelay`, and answers over the IPC channel. Measuring inside
 * the process keeps the verdict about the gateway's loop, not about how the machine schedules the
 * test's own probe. Plain Node with type stripping runs this file: erasable TypeScript only.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"

const histogram = monitorEventLoopDelay({ resolution: 10 })
histogram.enable()

process.on("message", (message: unknown) => {
  if (message === "loop:reset") {
    histogram.reset()
    process.send?.({ _tag: "loop:reset" })
  } else if (message === "loop:read") {
    // Nanoseconds; a histogram with no sample yet reports a huge minimum and a zero maximum.
    process.send?.({ _tag: "loop:read", maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, samples: histogram.count })
  }
})
// The channel must not keep a gateway that was asked to stop alive.
process.channel?.unref()
