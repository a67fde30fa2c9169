import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createClient } from "redis"
import { DeploymentHealth } from "../../../src/Services/Routing/DeploymentHealth.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { CuttableProxy } from "../../support/CuttableProxy.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { type FaultStorage, makeFaultStorage, usageRowsOf } from "../../support/FaultStorage.ts"
import { openAiCompletion, openAiTextFrames } from "../../support/OpenAiFixtures.ts"
import { parseSse } from "../../support/SseClient.ts"
import { type CreatedKey, startGateway, type TestGateway } from "../../support/TestGateway.ts"

const redisUrl = new URL(process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379")
const until = async (check: () => Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * The database and Redis go away under a running gateway (each behind a proxy the test cuts):
 * what clients get, and that the usage ledger ends with exactly one row per answered request.
 */
describe("fault matrix: the database and Redis go away", () => {
  let storage: FaultStorage
  let redis: CuttableProxy
  const upstream = new FakeUpstream()
  let gw: TestGateway
  let cached: CreatedKey
  let uncached: CreatedKey
  const prefix = `gateway-test-fault-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`

  beforeAll(async () => {
    storage = await makeFaultStorage()
    redis = await new CuttableProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }).start()
    await upstream.start()
    gw = await startGateway({
      storage,
      adminToken: "admin-secret-0123456789abcdef-0123",
      settings: { redisUrl: Redacted.make(`redis://127.0.0.1:${redis.port}`), redisPrefix: prefix },
      config: {
        auth: { cache_ttl_seconds: 1 },
        usage: { flush_interval_ms: 100 },
        routing: { failure_threshold: 2, base_backoff_ms: 1, max_backoff_ms: 2 },
        resilience: { retry_after_seconds: 2, storage_timeout_ms: 2000 },
        providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-fault" }],
        models: [{ id: "gpt-test", kind: "chat", capabilities: { file_input: true }, deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
      }
    })
    cached = await gw.createKey({ withUser: true })
    uncached = await gw.createKey({ withUser: true })
  })
  afterAll(async () => {
    await gw?.stop()
    await upstream.stop()
    await redis?.stop()
    const client = createClient({ url: redisUrl.toString() })
    await client.connect()
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) if (keys.length > 0) await client.del(keys)
    await client.close()
    await storage?.cleanup()
  })

  const chat = (key: CreatedKey, body: Record<string, unknown> = {}) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], ...body })
    })
  const flush = () => gw.runtime.runPromise(Effect.flatMap(UsageLedger, (ledger) => ledger.flush))

  it("Postgres stopped: a cached key is served, anything needing the database is a 503 with Retry-After; after the restart every answered request has exactly one row", async () => {
    upstream.always({ kind: "json", status: 200, body: openAiCompletion({ content: "served" }) })
    expect((await chat(cached)).status).toBe(200)
    await flush()
    storage.proxy.cut()
    try {
      // Past the key cache's TTL: the key is still served on its last verdict while the database is away.
      await new Promise((r) => setTimeout(r, 1200))
      const served = await chat(cached)
      expect(served.status, await served.clone().text()).toBe(200)
      expect(((await served.json()) as any).choices[0].message.content).toBe("served")
      upstream.reply({ kind: "sse", frames: openAiTextFrames(["streamed"]) })
      const streamed = await chat(cached, { stream: true })
      const sse = parseSse(await streamed.text())
      expect(sse.done).toBe(true)
      expect(sse.chunks.map((c) => (c.choices as Array<any>)[0]?.delta?.content ?? "").join("")).toBe("streamed")

      const refused = await chat(uncached)
      expect(refused.status).toBe(503)
      expect(refused.headers.get("retry-after")).toBe("2")
      expect(await refused.json()).toEqual({
        error: { message: expect.stringContaining("database"), type: "upstream_error", param: null, code: "storage_unavailable" }
      })
      // A request that needs the database further in answers 503 too, and its row says so.
      const document = await chat(cached, { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-abc" } }] }] })
      expect(document.status).toBe(503)
      const files = await fetch(`${gw.url}/v1/files`, { headers: { authorization: `Bearer ${cached.secret}` } })
      expect(files.status).toBe(503)
      expect(((await files.json()) as any).error.code).toBe("storage_unavailable")
      const admin = await fetch(`${gw.url}/admin/projects`, { headers: { authorization: "Bearer admin-secret-0123456789abcdef-0123" } })
      expect(admin.status).toBe(503)
      expect((await fetch(`${gw.url}/readyz`)).status).toBe(503)
      // Flushes fail meanwhile; the rows wait.
      await new Promise((r) => setTimeout(r, 300))

      storage.proxy.restore()
      const answered = [served, streamed, document].map((r) => r.headers.get("x-request-id")!)
      await until(async () => {
        await flush()
        return (await usageRowsOf(storage, answered)).length >= answered.length
      })
      await new Promise((r) => setTimeout(r, 300))
      const rows = await usageRowsOf(storage, [...answered, refused.headers.get("x-request-id")!])
      expect(rows.map((r) => [r.request_id, Number(r.status), r.streamed])).toEqual([
        [answered[0], 200, false],
        [answered[1], 200, true],
        [answered[2], 503, false]
      ])
    } finally {
      storage.proxy.restore()
    }
  })

  it("Redis stopped: requests are answered from process-local breaker state, and what was recorded meanwhile reaches Redis when it is back", async () => {
    const health = await gw.runtime.runPromise(DeploymentHealth)
    const deployment = "openai/gpt-4o-mini"
    redis.cut()
    let failed: Response
    try {
      upstream.reset()
      upstream.always({ kind: "json", status: 500, body: { error: { message: "down" } } })
      const started = Date.now()
      failed = await chat(cached)
      expect([502, 503]).toContain(failed.status)
      expect(upstream.requests).toHaveLength(2)
      expect(Date.now() - started).toBeLessThan(3000)
      // Two failures reach the threshold: the circuit is open here although Redis cannot take it yet.
      expect(await gw.runtime.runPromise(health.isOpen(deployment))).toBe(true)
      await gw.runtime.runPromise(health.sync)
    } finally {
      redis.restore()
    }
    const client = createClient({ url: redisUrl.toString() })
    await client.connect()
    try {
      await until(async () => {
        await gw.runtime.runPromise(health.sync)
        return Number((await client.hGet(`${prefix}health:open_until`, deployment)) ?? 0) > Date.now()
      })
      // The trial call after the outage succeeds and resets the shared count.
      upstream.always({ kind: "json", status: 200, body: openAiCompletion({ content: "back" }) })
      const back = await chat(cached)
      expect(back.status).toBe(200)
      await until(async () => {
        await gw.runtime.runPromise(health.sync)
        return (await client.hGet(`${prefix}health:failures`, deployment)) === null
      })
      const ids = [failed.headers.get("x-request-id")!, back.headers.get("x-request-id")!]
      await until(async () => {
        await flush()
        return (await usageRowsOf(storage, ids)).length === 2
      })
      expect((await usageRowsOf(storage, ids)).map((r) => Number(r.status))).toEqual([failed.status, 200])
    } finally {
      await client.close()
    }
  })
})
