import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { GatewayProcess } from "./GatewayProcess.ts"

const preload = NodePath.join(NodePath.dirname(fileURLToPath(import.meta.url)), "loop-probe-preload.mjs")

/** The environment that loads the probe into a gateway process started by `startGatewayProcess`. */
export const loopProbeEnv = { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` }

export interface LoopReport {
  /** The most CPU the gateway's main thread spent in one turn of its event loop (ms). */
  readonly maxCpuMs: number
  /** The longest wall-clock gap between two ticks (ms): includes waiting for a busy machine's cores. */
  readonly maxWallMs: number
  readonly maxRssMb: number
  readonly rssMb: number
  /** The longest a `GET /healthz` sent every 50 ms waited for its answer (ms, wall clock). */
  readonly healthzMaxMs: number
}

/**
 * Watches a gateway process while hostile requests run: the probe inside it (CPU per loop turn,
 * RSS), and `GET /healthz` every 50 ms from outside. `stop` returns the maxima since `start`.
 */
export const watchGateway = async (gateway: GatewayProcess) => {
  const port = Number(/loop probe on (\d+)/.exec(gateway.output())?.[1] ?? NaN)
  if (!Number.isFinite(port)) throw new Error(`the gateway process has no loop probe:\n${gateway.output()}`)
  const probeUrl = `http://127.0.0.1:${port}`
  await (await fetch(`${probeUrl}/reset`)).text()
  let healthzMaxMs = 0
  let running = true
  const healthz = (async () => {
    while (running) {
      const started = performance.now()
      const res = await fetch(`${gateway.url}/healthz`)
      await res.text()
      healthzMaxMs = Math.max(healthzMaxMs, performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  return {
    stop: async (): Promise<LoopReport> => {
      running = false
      await healthz
      const report = (await (await fetch(probeUrl)).json()) as Omit<LoopReport, "healthzMaxMs">
      return { ...report, healthzMaxMs }
    }
  }
}
