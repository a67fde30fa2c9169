import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { runAdminCli } from "../support/AdminCliRun.ts"
import { type FakeUpstream, startFakeUpstream } from "../support/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess } from "../support/GatewayProcess.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"

const upstreamKey = "sk-access-log-upstream-key-0001"

describe("the access log", () => {
  let storage: TestStorage
  let upstream: FakeUpstream
  let gateway: GatewayProcess
  let configFile = ""

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
    configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(
      configFile,
      [
        "providers:",
        `  - { id: openai, kind: openai, base_url: "${upstream.url}/v1", api_key: ${upstreamKey} }`,
        "models:",
        "  - { id: gpt-test, kind: chat, deployments: [{ provider: openai, model: gpt-4o-mini }] }"
      ].join("\n")
    )
  }, 60_000)
  afterAll(async () => {
    await gateway?.stop("SIGKILL")
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("writes one JSON line per request with what it did, and no secret", async () => {
    gateway = await startGatewayProcess({ storage, configFile, env: { ACCESS_LOG: "json" } })
    const created = await runAdminCli(["keys", "create", "--new-project", "logs", "--json"], {
      DATA_DIR: storage.dataDir,
      ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) })
    })
    expect(created.stderr).toBe("")
    const { secret, key } = JSON.parse(created.stdout) as { secret: string; key: { id: string } }
    const post = (body: unknown, bearer = secret) =>
      fetch(`${gateway.url}/v1/chat/completions?trace=1`, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "x-api-key": secret },
        body: JSON.stringify(body)
      })
    const messages = [{ role: "user", content: "hi" }]

    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "hello", usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } }) })
    const plain = await post({ model: "gpt-test", messages })
    expect(plain.status).toBe(200)
    await plain.text()
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) })
    const streamed = await post({ model: "gpt-test", messages, stream: true, stream_options: { include_usage: true } })
    await streamed.text()
    const refused = await post({ model: "gpt-test", messages }, "sk-not-a-real-key-000000000000000000")
    expect(refused.status).toBe(401)
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)

    await gateway.stop()
    const output = gateway.output()
    const lines = output.split("\n").filter((l) => l.includes('"log":"access"')).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines).toHaveLength(4)
    const [first, second, third, fourth] = lines
    for (const line of lines) {
      expect(Date.parse(String(line["time"]))).toBeGreaterThan(Date.now() - 120_000)
      // The health checks answer without a request id; every /v1 request has one.
      if (line["route"] !== "/healthz") expect(line["request_id"]).toMatch(/^req_/)
      expect(line["client"]).toBe("127.0.0.1")
      expect(typeof line["latency_ms"]).toBe("number")
    }
    expect(first).toMatchObject({
      level: "INFO",
      method: "POST",
      route: "/v1/chat/completions",
      status: 200,
      model: "gpt-test",
      provider: "openai",
      attempts: 1,
      prompt_tokens: 7,
      completion_tokens: 2,
      key_id: key.id,
      project_id: (JSON.parse(created.stdout) as { key: { project_id: string } }).key.project_id
    })
    expect(first!["code"]).toBeUndefined()
    expect(first!["request_id"]).toBe(plain.headers.get("x-request-id"))
    expect(first!["ttft_ms"]).toBeUndefined()
    expect(second!["request_id"]).toBe(streamed.headers.get("x-request-id"))
    expect(third!["request_id"]).toBe(refused.headers.get("x-request-id"))
    expect(second).toMatchObject({ status: 200, model: "gpt-test", provider: "openai", attempts: 1, prompt_tokens: 12, completion_tokens: 3, key_id: key.id })
    expect(second!["ttft_ms"]).toEqual(expect.any(Number))
    expect(third).toMatchObject({ status: 401, route: "/v1/chat/completions", code: "invalid_api_key" })
    expect(third!["key_id"]).toBeUndefined()
    expect(fourth).toMatchObject({ method: "GET", route: "/healthz", status: 200 })
    // Application lines share the access lines' field names: time, level, log.
    const appLines = output.split("\n").filter((l) => l.includes('"log":"app"')).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(appLines.length).toBeGreaterThan(0)
    for (const line of appLines) {
      expect(Object.keys(line).slice(0, 3)).toEqual(["time", "level", "log"])
      expect(line).not.toHaveProperty("timestamp")
    }
    // Neither the client's key nor the provider's appears anywhere in the output.
    expect(output).not.toContain(secret)
    expect(output).not.toContain(upstreamKey)
    expect(output).not.toContain("sk-not-a-real-key")
  }, 120_000)

  it("ACCESS_LOG=off writes none; text writes the human line", async () => {
    for (const [mode, expected] of [["off", 0], ["text", 1]] as const) {
      gateway = await startGatewayProcess({ storage, configFile, env: { ACCESS_LOG: mode } })
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)
      await gateway.stop()
      const lines = gateway.output().split("\n").filter((l) => / GET \/healthz 200 /.test(l))
      expect(lines).toHaveLength(expected)
      expect(gateway.output()).not.toContain('"log":"access"')
    }
  }, 120_000)
})
