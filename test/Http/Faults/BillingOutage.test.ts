import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Admission } from "../../../src/Services/Billing/Admission.ts"
import { adminCall } from "../../support/AdminClient.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { type FaultStorage, makeFaultStorage } from "../../support/FaultStorage.ts"
import { startGateway, type TestGateway } from "../../support/TestGateway.ts"
import { billingConfig, completion, hi } from "../BillingSupport.ts"

const token = "admin-token-billing-outage"

/** The database (the authority for balances) goes away under gateways with either store-failure policy. */
describe("fault matrix: the balances database goes away", () => {
  let storage: FaultStorage
  const upstream = new FakeUpstream()
  let denying: TestGateway
  let allowing: TestGateway

  beforeAll(async () => {
    storage = await makeFaultStorage()
    await upstream.start()
    const start = (billing: "deny" | "allow") =>
      startGateway({
        storage,
        adminToken: token,
        config: billingConfig(upstream.url, {
          auth: { cache_ttl_seconds: 1 },
          resilience: { retry_after_seconds: 2, storage_timeout_ms: 2000 },
          limits: { on_store_failure: { billing } }
        })
      })
    denying = await start("deny")
    allowing = await start("allow")
  })
  afterAll(async () => {
    await denying?.stop()
    await allowing?.stop()
    await upstream.stop()
    await storage?.cleanup()
  })

  const post = (gw: TestGateway, secret: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(hi())
    })
  const stats = (gw: TestGateway) => gw.runtime.runPromise(Effect.map(Effect.service(Admission), (a) => ({ ...a.stats })))

  it("`deny` answers 503 billing_unavailable with Retry-After and sends nothing upstream; `allow` serves unchecked; never a 500", async () => {
    upstream.always(completion())
    const key = await denying.createKey()
    expect((await adminCall(() => denying.url, token)("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: 1 } })).status).toBe(200)
    await allowing.runtime.runPromise(Effect.flatMap(Effect.service(Admission), (a) => a.refresh))
    // Both instances have verified the key once: their caches serve it while the database is away.
    expect((await post(denying, key.secret)).status).toBe(200)
    expect((await post(allowing, key.secret)).status).toBe(200)
    const before = upstream.requests.length
    storage.proxy.cut()
    try {
      const denied = await post(denying, key.secret)
      expect(denied.status).toBe(503)
      expect(denied.headers.get("retry-after")).toBe("2")
      expect(((await denied.json()) as any).error).toMatchObject({ type: "upstream_error", code: "billing_unavailable" })
      expect(upstream.requests.length).toBe(before)
      const allowed = await post(allowing, key.secret)
      expect(allowed.status).toBe(200)
      expect(upstream.requests.length).toBe(before + 1)
      expect(await stats(denying)).toMatchObject({ deniedOnStoreFailure: 1 })
      expect(await stats(allowing)).toMatchObject({ admittedOnStoreFailure: 1 })
      expect((await stats(allowing)).billingStoreFailures).toBeGreaterThanOrEqual(1)
    } finally {
      storage.proxy.restore()
    }
  }, 30_000)
})
