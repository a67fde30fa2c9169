/**
 * A worker thread of the test process that requests `/healthz` every `intervalMs` and records how
 * long each answer took. Running apart from the test's main thread, it is not delayed by the test
 * building a 50 MB body. Plain Node with type stripping runs this file: erasable TypeScript only.
 */
import { parentPort, workerData } from "node:worker_threads"

interface ProbeSettings {
  readonly url: string
  readonly intervalMs: number
}

const { url, intervalMs } = workerData as ProbeSettings
const port = parentPort!
let running = true
let count = 0
let failures = 0
let maxMs = 0

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const loop = async () => {
  while (running) {
    const started = performance.now()
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(120_000) })
      await res.arrayBuffer()
      if (res.status !== 200) failures++
    } catch {
      failures++
    }
    const waited = performance.now() - started
    count++
    maxMs = Math.max(maxMs, waited)
    await sleep(Math.max(0, intervalMs - waited))
  }
}

const done = loop()
port.on("message", (message: unknown) => {
  if (message !== "stop") return
  running = false
  void done.then(() => port.postMessage({ count, failures, maxMs }))
})
