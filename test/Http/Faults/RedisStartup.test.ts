import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { CuttableProxy } from "../../support/CuttableProxy.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { openAiCompletion } from "../../support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "../../support/TestDatabase.ts"
import { startGateway } from "../../support/TestGateway.ts"

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
  /** When it exited (epoch ms). */
  readonly exitedAt: number
}

/** The fault matrix's Redis at start-up: it never answers (a proxy that resets every connection). */
describe("fault matrix: Redis unreachable at start-up", () => {
  let storage: TestStorage
  let deadRedis: CuttableProxy
  const upstream = new FakeUpstream()
  const children: Array<ChildProcess> = []

  beforeAll(async () => {
    storage = await makeTestStorage()
    await upstream.start()
    deadRedis = await new CuttableProxy({ host: "127.0.0.1", port: 9 }).start()
    deadRedis.cut()
  })
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await deadRedis?.stop()
    await upstream.stop()
    await storage?.cleanup()
  })

  /** `npm start`'s entry with `resilience` set; `onWaiting` runs once it is trying Redis. */
  const runGateway = (resilience: string, onWaiting?: (child: ChildProcess) => void) =>
    new Promise<Exited>((resolve) => {
      const configFile = NodePath.join(storage.dataDir, `gateway-${children.length}.yaml`)
      writeFileSync(configFile, `resilience: ${resilience}\n`)
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: storage.dataDir,
        GATEWAY_CONFIG: configFile,
        REDIS_URL: `redis://127.0.0.1:${deadRedis.port}`,
        LOG_LEVEL: "error"
      }
      if (storage.databaseUrl === undefined) delete env["DATABASE_URL"]
      else env["DATABASE_URL"] = Redacted.value(storage.databaseUrl)
      const child = spawn(process.execPath, ["src/main.ts"], { env, stdio: ["ignore", "ignore", "pipe"] })
      children.push(child)
      let stderr = ""
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
      const before = deadRedis.accepted
      const poll = setInterval(() => {
        if (deadRedis.accepted > before && onWaiting !== undefined) {
          clearInterval(poll)
          onWaiting(child)
        }
      }, 20)
      child.once("exit", (code, signal) => {
        clearInterval(poll)
        resolve({ code, signal, stderr, exitedAt: Date.now() })
      })
    })

  it("with redis_unavailable: exit, start-up stops after the configured wait with one line", async () => {
    const exited = await runGateway("{ redis_startup_wait_seconds: 1, redis_unavailable: exit }")
    expect(exited.code).toBe(1)
    const lines = exited.stderr.trim().split("\n")
    expect(lines).toEqual([`gateway: Redis at redis://127.0.0.1:${deadRedis.port} did not answer within 1 s (resilience.redis_unavailable: exit)`])
  }, 60_000)

  it("SIGTERM while start-up waits for Redis stops the process at once", async () => {
    let signalledAt = 0
    const exited = await runGateway("{ redis_startup_wait_seconds: 600, redis_unavailable: exit }", (child) => {
      signalledAt = Date.now()
      child.kill("SIGTERM")
    })
    expect(signalledAt).toBeGreaterThan(0)
    expect(exited.signal).toBeNull()
    expect(exited.stderr).not.toContain("Error")
    // Well within the wait of 600 s: the process obeyed the signal. Timed from the signal, not
    // from the spawn: on a loaded machine the start-up before it can take tens of seconds.
    expect(exited.exitedAt - signalledAt).toBeLessThan(30_000)
  }, 120_000)

  it("with redis_unavailable: local (the default), the gateway starts and serves on process-local state", async () => {
    upstream.always({ kind: "json", status: 200, body: openAiCompletion({ content: "no redis needed" }) })
    const gw = await startGateway({
      storage,
      settings: { redisUrl: Redacted.make(`redis://127.0.0.1:${deadRedis.port}`) },
      config: {
        resilience: { redis_startup_wait_seconds: 1 },
        providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
        models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
      }
    })
    try {
      const key = await gw.createKey()
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as any).choices[0].message.content).toBe("no redis needed")
    } finally {
      await gw.stop()
    }
  }, 60_000)
})
