import { randomBytes } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { expect } from "@effect/vitest"
import { stringify } from "yaml"
import { FakeUpstream } from "./FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess } from "./GatewayProcess.ts"
import { makeTestStorage, type TestStorage } from "./TestDatabase.ts"

/**
 * The gateway as a separate process, for hostile-input tests: its own event loop and memory are
 * what is measured, apart from the test runner's. `measure` runs one request while
 *  - a worker thread of the test requests `/healthz` every 50 ms (what a client would see),
 *  - the gateway itself records how long its event loop was held (`LoopMonitor.ts`, preloaded:
 *    the main thread's CPU time between timer ticks, and the timer's lateness),
 *  - the kernel records the process's peak resident memory (VmHWM, reset before each run).
 * The held figure is the one to assert on: on a loaded 2-core machine the probe's wait and the
 * timer's lateness also hold the scheduler's delays, which say nothing about the gateway.
 */

const here = NodePath.dirname(fileURLToPath(import.meta.url))

export interface ProbeReport {
  /** `/healthz` requests answered or failed during the run. */
  readonly count: number
  readonly failures: number
  /** Longest wait for one answer, as the probe saw it. */
  readonly maxMs: number
}

export interface Measurement<A> {
  readonly value: A
  readonly probe: ProbeReport
  /** Longest time the gateway's event loop was held running code during the run (main-thread CPU between timer ticks). */
  readonly loopMaxMs: number
  /** The gateway's main-thread CPU time during the run, every turn of its loop together. */
  readonly cpuMs: number
  /** Longest lateness of a 10 ms timer (monitorEventLoopDelay): the loop held, plus the OS's scheduling delays. */
  readonly delayMaxMs: number
  /** Peak resident memory of the gateway process during the run (threads included). */
  readonly peakRssMb: number
  readonly ms: number
}

export type SiteHandler = (request: IncomingMessage, response: ServerResponse) => void

/** A web site on loopback whose paths the test scripts (pages, sitemaps, compressed bombs). */
export interface HostileSite {
  readonly url: string
  readonly serve: (path: string, handler: SiteHandler) => void
}

const startSite = async (): Promise<HostileSite & { readonly close: () => Promise<void> }> => {
  const routes = new Map<string, SiteHandler>()
  const server: Server = createServer((request, response) => {
    const handler = routes.get(new URL(request.url ?? "/", "http://site").pathname)
    if (handler !== undefined) return handler(request, response)
    response.writeHead(404, { "content-type": "text/plain" }).end("not found")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (path, handler) => void routes.set(path, handler),
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

export interface HostileGateway {
  readonly url: string
  readonly adminToken: string
  /** The project the key belongs to. */
  readonly projectId: string
  /** An admin API call (`POST` unless said); throws unless it succeeds. */
  readonly admin: (path: string, body: unknown, method?: string) => Promise<Record<string, any>>
  /** An API key (every scope) of a project with a user, so file uploads work too. */
  readonly secret: string
  readonly upstream: FakeUpstream
  readonly site: HostileSite
  readonly process: GatewayProcess
  readonly storage: TestStorage
  /** `fetch` on the gateway with the key. */
  readonly request: (path: string, init?: RequestInit) => Promise<Response>
  readonly postJson: (path: string, body: unknown) => Promise<Response>
  readonly measure: <A>(run: () => Promise<A>) => Promise<Measurement<A>>
  /** Resident memory now and its peak since the last `measure` started (MB). */
  readonly memory: () => { readonly rssMb: number; readonly peakMb: number }
  readonly stop: () => Promise<void>
}

export interface HostileOptions {
  /** gateway.yaml blocks added to the defaults (an OpenAI-style model `gpt-test` on the fake upstream reading files and images; private networks allowed, so the site on loopback can be fetched). */
  readonly config?: (context: { readonly upstream: FakeUpstream; readonly site: HostileSite }) => Record<string, unknown>
  readonly env?: NodeJS.ProcessEnv
}

const statusField = (pid: number, field: string): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? 0 : Number(match[1]) / 1024
}

export const startHostileGateway = async (options: HostileOptions = {}): Promise<HostileGateway> => {
  const storage = await makeTestStorage()
  const upstream = new FakeUpstream()
  await upstream.start()
  const site = await startSite()
  const adminToken = randomBytes(32).toString("hex")
  const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
  writeFileSync(
    configFile,
    stringify({
      access_log: { enabled: false },
      fetch: { allow_private_networks: true },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream" }],
      models: [
        {
          id: "gpt-test",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
          capabilities: { vision: true, file_input: true }
        }
      ],
      ...options.config?.({ upstream, site })
    })
  )
  const child = await startGatewayProcess({
    storage,
    configFile,
    env: { GATEWAY_ADMIN_TOKEN: adminToken, ...options.env },
    nodeArgs: ["--import", NodePath.join(here, "LoopMonitor.ts")],
    ipc: true
  })
  const pid = child.child.pid!

  const admin = async (path: string, body: unknown, method = "POST") => {
    const res = await fetch(`${child.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, any>
  }
  const project = await admin("/projects", { name: "hostile" })
  const user = await admin(`/projects/${project["id"]}/users`, { name: "tester" })
  const created = await admin(`/projects/${project["id"]}/keys`, { user_id: user["id"] })
  const secret = created["secret"] as string

  const ask = (message: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const onMessage = (answer: { readonly _tag?: string } & Record<string, number>) => {
        if (answer._tag !== message) return
        child.child.off("message", onMessage)
        resolve(answer)
      }
      child.child.on("message", onMessage)
      child.child.send(message)
    })

  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${child.url}${path}`, { ...init, headers: { authorization: `Bearer ${secret}`, ...(init.headers as Record<string, string>) } })

  const measure = async <A>(run: () => Promise<A>): Promise<Measurement<A>> => {
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size.
    writeFileSync(`/proc/${pid}/clear_refs`, "5")
    await ask("loop:reset")
    const probe = new Worker(new URL("./HealthProbeWorker.ts", import.meta.url), { workerData: { url: `${child.url}/healthz`, intervalMs: 50 } })
    const started = performance.now()
    let value: A
    try {
      value = await run()
    } finally {
      probe.postMessage("stop")
    }
    const ms = performance.now() - started
    const report = await new Promise<ProbeReport>((resolve) => probe.once("message", resolve))
    await probe.terminate()
    const loop = await ask("loop:read")
    return { value, probe: report, loopMaxMs: loop["heldMaxMs"]!, cpuMs: loop["cpuMs"]!, delayMaxMs: loop["delayMaxMs"]!, peakRssMb: statusField(pid, "VmHWM"), ms }
  }

  return {
    url: child.url,
    adminToken,
    projectId: project["id"] as string,
    admin,
    secret,
    upstream,
    site,
    process: child,
    storage,
    request,
    postJson: (path, body) =>
      request(path, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) }),
    measure,
    memory: () => ({ rssMb: statusField(pid, "VmRSS"), peakMb: statusField(pid, "VmHWM") }),
    stop: async () => {
      await child.stop()
      await site.close()
      await upstream.stop()
      await storage.cleanup()
    }
  }
}

/**
 * The bounds every hostile request is held to. The loop figure is main-thread CPU time in one
 * turn of the event loop, which a busy machine cannot raise by withholding the CPU; it can still
 * inflate it (cold caches, a shared core) about threefold, so the bound is twice the issue's
 * 100 ms: the holds it reported ran 300 ms to 30 s, and a quiet run stays far below either.
 */
export const loopBoundMs = 200

/** The loop held under `loopBoundMs`, the peak memory under `peakRssMb`, and `/healthz` answering throughout. */
export const expectBounded = (measured: Measurement<unknown>, what: string, bounds: { readonly peakRssMb: number }) => {
  expect(measured.loopMaxMs, `${what}: the gateway's event loop was held`).toBeLessThan(loopBoundMs)
  expect(measured.peakRssMb, `${what}: peak resident memory`).toBeLessThan(bounds.peakRssMb)
  expect(measured.probe.failures, `${what}: /healthz failed`).toBe(0)
  expect(measured.probe.count, `${what}: /healthz was probed`).toBeGreaterThan(0)
}
