import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { runAdminCli } from "../../support/AdminCliRun.ts"
import { type FakeUpstream, startFakeUpstream } from "../../support/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess } from "../../support/GatewayProcess.ts"
import { openAiCompletion } from "../../support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "../../support/TestDatabase.ts"

describe("SIGHUP", () => {
  let storage: TestStorage
  let upstream: FakeUpstream
  let gateway: GatewayProcess | undefined

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
  }, 60_000)
  afterAll(async () => {
    await gateway?.stop("SIGKILL")
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("does not stop the gateway or the request in flight, and logs that a restart applies the configuration", async () => {
    const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(
      configFile,
      [
        "providers:",
        `  - { id: openai, kind: openai, base_url: "${upstream.url}/v1", api_key: sk-up }`,
        "models:",
        "  - { id: gpt-test, kind: chat, deployments: [{ provider: openai, model: gpt-4o-mini }] }"
      ].join("\n")
    )
    const started = await startGatewayProcess({ storage, configFile, env: { ACCESS_LOG: "off" } })
    gateway = started
    const created = await runAdminCli(["keys", "create", "--new-project", "hup", "--secret-only"], {
      DATA_DIR: storage.dataDir,
      ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) })
    })
    const secret = created.stdout.trim()
    const ask = () =>
      fetch(`${started.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      })
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "slow" }), delayMs: 800 })
    const inFlight = ask()
    for (let i = 0; i < 200 && upstream.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    started.child.kill("SIGHUP")
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("slow")
    expect(started.child.exitCode).toBeNull()
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "after" }) })
    expect((await ask()).status).toBe(200)
    const line = started.output().split("\n").find((l) => l.includes("SIGHUP received"))
    expect(line).toBeDefined()
    expect(JSON.parse(line!)).toMatchObject({ level: "WARN" })
    expect(line).toContain("restart the gateway")
    expect(await started.stop()).toBe(0)
  }, 120_000)
})
