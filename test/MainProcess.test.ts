import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Accounts } from "../src/Services/Accounts/Accounts.ts"
import { ApiKeys } from "../src/Services/Accounts/ApiKeys.ts"
import { AppConfig } from "../src/Services/Config/AppConfig.ts"
import { DatabaseForCli } from "../src/Services/Storage/Database.ts"
import { decodeConfig, GatewayConfigFile } from "../src/Services/Config/GatewayConfigLoader.ts"
import { type FakeUpstream, startFakeUpstream } from "./support/FakeUpstream.ts"
import { openAiCompletion } from "./support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "./support/TestDatabase.ts"

/** The real entry point, as `npm start` runs it: start-up, a request, SIGTERM, a clean stop. */
describe("the gateway process", () => {
  let storage: TestStorage
  let upstream: FakeUpstream
  let gateway: ChildProcess
  let port = 0
  let output = ""

  const settings = () => ({
    port: 0,
    host: "127.0.0.1",
    configPath: undefined,
    databaseUrl: storage.databaseUrl,
    dataDir: storage.dataDir,
    adminToken: undefined,
    otlpEndpoint: undefined,
    redisUrl: undefined,
    redisPrefix: "t:",
    logLevel: "warn"
  })
  // The same database the gateway uses: its socket when it runs, the data directory when it does not.
  const withDatabase = <A>(effect: Effect.Effect<A, unknown, Accounts | ApiKeys | SqlClient.SqlClient>) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const config = yield* decodeConfig("inline", {}, {})
        return yield* effect.pipe(
          Effect.provide(
            Layer.mergeAll(ApiKeys.layer, Accounts.layer).pipe(
              Layer.provideMerge(Accounts.layer),
              Layer.provideMerge(DatabaseForCli),
              Layer.provide(GatewayConfigFile.fromConfig(config)),
              Layer.provide(AppConfig.make(settings()))
            )
          )
        )
      }).pipe(Effect.scoped)
    )

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
    const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(
      configFile,
      [
        "server: { shutdown_grace_seconds: 10 }",
        "providers:",
        `  - { id: openai, kind: openai, base_url: "${upstream.url}/v1", api_key: sk-up }`,
        "models:",
        "  - { id: gpt-test, kind: chat, deployments: [{ provider: openai, model: gpt-4o-mini }] }"
      ].join("\n")
    )
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: storage.dataDir, GATEWAY_CONFIG: configFile, LOG_LEVEL: "info" }
    if (storage.databaseUrl === undefined) delete env["DATABASE_URL"]
    else env["DATABASE_URL"] = Redacted.value(storage.databaseUrl)
    gateway = spawn(process.execPath, ["src/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
    gateway.stdout!.on("data", (d: Buffer) => (output += d.toString()))
    gateway.stderr!.on("data", (d: Buffer) => (output += d.toString()))
    const deadline = Date.now() + 60_000
    while (port === 0 && Date.now() < deadline) {
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match !== null) port = Number(match[1])
      else await new Promise((r) => setTimeout(r, 100))
    }
    if (port === 0) throw new Error(`gateway did not start:\n${output}`)
  }, 90_000)
  afterAll(async () => {
    if (gateway.exitCode === null) gateway.kill("SIGKILL")
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("logs JSON, serves, and on SIGTERM lets the in-flight request finish and flushes usage", async () => {
    const key = await withDatabase(
      Effect.gen(function* () {
        const project = yield* (yield* Accounts).createProject("process test")
        return (yield* (yield* ApiKeys).create({ projectId: project.id })).secret
      })
    )
    // The only log line so far is the JSON "Listening" line.
    const firstLine = output.split("\n").find((l) => l.includes("Listening"))!
    expect(JSON.parse(firstLine)).toMatchObject({ level: "INFO" })

    // The upstream holds its answer for a second, so the request is in flight when SIGTERM arrives.
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "slow answer" }), delayMs: 1000 })
    const slow = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
    })
    const exited = new Promise<number | null>((resolve) => gateway.once("exit", (code) => resolve(code)))
    for (let i = 0; i < 500 && upstream.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(upstream.requests).toHaveLength(1)
    gateway.kill("SIGTERM")
    const res = await slow
    expect(res.status).toBe(200)
    expect(((await res.json()) as any).choices[0].message.content).toBe("slow answer")
    expect(await exited).toBe(0)
    const count = await withDatabase(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM usage_events`
        return rows[0]!.n
      })
    )
    expect(count).toBe(1)
  }, 60_000)
})

describe("start-up failures", () => {
  it("a port already in use stops start-up with one line naming the address", async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const { port } = blocker.address() as AddressInfo
    try {
      const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-port-"))
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: NodePath.join(dir, "data") }
      // Embedded storage in its own directory: the failure under test comes after storage is up.
      delete env["DATABASE_URL"]
      delete env["GATEWAY_CONFIG"]
      const result = spawnSync(process.execPath, ["src/main.ts"], { env, encoding: "utf8", timeout: 60_000 })
      expect(result.status).toBe(1)
      const lines = result.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toBe(`gateway: listen EADDRINUSE: address already in use 127.0.0.1:${port}`)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  }, 90_000)
})
