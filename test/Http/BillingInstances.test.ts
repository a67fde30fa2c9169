import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Admission } from "../../src/Services/Billing/Admission.ts"
import { adminCall } from "../support/AdminClient.ts"
import { CuttableProxy } from "../support/CuttableProxy.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { sharedPostgres } from "../support/SharedPostgres.ts"
import type { TestStorage } from "../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../support/TestGateway.ts"
import { actualNano, billingConfig, completion, eventually, hi, worstCaseNano } from "./BillingSupport.ts"

const token = "admin-token-instances-0123456789abcdef"
const redisUrl = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379"

const post = (gw: TestGateway, secret: string, body: unknown = hi()) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const stats = (gw: TestGateway) => gw.runtime.runPromise(Effect.map(Effect.service(Admission), (a) => ({ ...a.stats, store: a.store })))
const refresh = (gw: TestGateway) => gw.runtime.runPromise(Effect.flatMap(Effect.service(Admission), (a) => a.refresh))

describe("two instances on one Postgres and Redis admit exactly what one would", () => {
  const upstream = new FakeUpstream()
  let storage: TestStorage
  let proxy: CuttableProxy
  const gateways: Array<TestGateway> = []
  let one: TestGateway
  let two: TestGateway
  let allowing: TestGateway
  let denying: TestGateway
  let pgOne: TestGateway
  let pgTwo: TestGateway
  const prefix = `gw-billing-test-${process.pid}-${Date.now()}:`

  beforeAll(async () => {
    storage = await sharedPostgres()
    await upstream.start()
    const target = new URL(redisUrl)
    proxy = await new CuttableProxy({ host: target.hostname, port: Number(target.port || 6379) }).start()
    const start = async (url: string | undefined, onFailure: "allow" | "deny" = "allow") => {
      const gw = await startGateway({
        storage,
        adminToken: token,
        config: billingConfig(upstream.url, { limits: { on_store_failure: { rate_limits: onFailure } } }),
        settings: { redisUrl: url === undefined ? undefined : Redacted.make(url), redisPrefix: prefix }
      })
      gateways.push(gw)
      return gw
    }
    one = await start(redisUrl)
    two = await start(redisUrl)
    allowing = await start(`redis://127.0.0.1:${proxy.port}`, "allow")
    denying = await start(`redis://127.0.0.1:${proxy.port}`, "deny")
    pgOne = await start(undefined)
    pgTwo = await start(undefined)
  }, 60_000)
  afterAll(async () => {
    for (const gw of gateways) await gw.stop()
    await proxy?.stop()
    await upstream.stop()
    await storage?.cleanup()
  })

  it("RPM: twelve concurrent requests spread over both instances, five admitted", async () => {
    upstream.always(completion(100))
    const key = await one.createKey()
    const admin = adminCall(() => one.url, token)
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 5, tpm: null } })).status).toBe(200)
    await refresh(two)
    expect((await stats(two)).store).toBe("redis")
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i % 2 === 0 ? one : two, key.secret).then((r) => r.status)))
    expect(answers.filter((s) => s === 200)).toHaveLength(5)
    expect(answers.filter((s) => s === 429)).toHaveLength(7)
  })

  it("without Redis the windows are shared through Postgres: the same twelve requests, five admitted", async () => {
    upstream.always(completion(100))
    const key = await pgOne.createKey()
    const admin = adminCall(() => pgOne.url, token)
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 5, tpm: 1_000 } })
    await refresh(pgTwo)
    expect((await stats(pgTwo)).store).toBe("postgres")
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i % 2 === 0 ? pgOne : pgTwo, key.secret)))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5)
    const refused = answers.filter((r) => r.status === 429)
    expect(refused).toHaveLength(7)
    for (const r of refused) expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  })

  it("credit: ten concurrent requests over both instances, exactly as many admitted as the balance reserves, settled exactly", async () => {
    // Every admitted request is held upstream until all ten are decided: a request that settled
    // before the last one was decided would hand its unused hold back (a slow machine does that).
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const before = upstream.requests.length
    let refused = 0
    const allDecided = () => {
      if (upstream.requests.length - before + refused >= 10) open()
    }
    upstream.always({ ...completion(), until: gate })
    const key = await one.createKey()
    const admin = adminCall(() => two.url, token)
    expect((await admin("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: 0.001 } })).status).toBe(200)
    await refresh(one)
    const watch = setInterval(allDecided, 10)
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i % 2 === 0 ? one : two, key.secret).then((r) => {
          if (r.status !== 200) refused++
          allDecided()
          return r.status
        })
      )
    ).finally(() => clearInterval(watch))
    const admitted = Math.floor(1_000_000 / worstCaseNano)
    expect(answers.filter((s) => s === 200)).toHaveLength(admitted)
    expect(answers.filter((s) => s === 402)).toHaveLength(10 - admitted)
    const expected = String(1_000_000 - admitted * actualNano)
    const ledger = await eventually(
      async () => (await admin("GET", `/admin/projects/${key.projectId}/credits`)).body as any,
      (l) => l.balance_nano_usd === expected
    )
    expect(ledger.balance_nano_usd).toBe(expected)
    expect(ledger.rebuilt_balance_nano_usd).toBe(expected)
  })

  it("Redis cut mid-test: `allow` admits unchecked and counts it, `deny` answers 503; neither is a 500", async () => {
    upstream.always(completion())
    const key = await allowing.createKey()
    const admin = adminCall(() => allowing.url, token)
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 1, tpm: null } })
    await refresh(denying)
    expect((await post(allowing, key.secret)).status).toBe(200)
    expect((await post(allowing, key.secret)).status).toBe(429)
    proxy.cut()
    const allowed = await post(allowing, key.secret)
    expect(allowed.status).toBe(200)
    const denied = await post(denying, key.secret)
    expect(denied.status).toBe(503)
    expect(denied.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(((await denied.json()) as any).error.code).toBe("rate_limits_unavailable")
    expect(await stats(allowing)).toMatchObject({ admittedOnStoreFailure: 1 })
    expect((await stats(allowing)).rateLimitStoreFailures).toBeGreaterThanOrEqual(1)
    expect(await stats(denying)).toMatchObject({ deniedOnStoreFailure: 1 })
    proxy.restore()
    // Back: the window in Redis still holds the first request, so the limit applies again.
    const again = await eventually(() => post(allowing, key.secret), (r) => r.status === 429, 10_000)
    expect(again.status).toBe(429)
  })
})
