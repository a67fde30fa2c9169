import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Admission } from "../../../src/Services/Billing/Admission.ts"
import { adminCall } from "../../support/AdminClient.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { type FaultStorage, makeFaultStorage } from "../../support/FaultStorage.ts"
import { startGateway, type TestGateway } from "../../support/TestGateway.ts"
import { billingConfig, completion, hi } from "../BillingSupport.ts"

const token = "admin-token-billing-outage-0123456789abcdef"

/**
 * The database (the authority for balances) goes away under a gateway with either store-failure
 * policy. One gateway at a time: the embedded storage serves one instance.
 */
describe("fault matrix: the balances database goes away", () => {
  let storage: FaultStorage
  const upstream = new FakeUpstream()

  beforeAll(async () => {
    storage = await makeFaultStorage()
    await upstream.start()
  })
  afterAll(async () => {
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

  /** A billed key that the gateway has verified once (its cache serves it while the database is away), then the cut. */
  const duringOutage = async (billing: "deny" | "allow", check: (gw: TestGateway, secret: string) => Promise<void>) => {
    const gw = await startGateway({
      storage,
      adminToken: token,
      config: billingConfig(upstream.url, {
        auth: { cache_ttl_seconds: 1 },
        resilience: { retry_after_seconds: 2, storage_timeout_ms: 2000 },
        limits: { on_store_failure: { billing } }
      })
    })
    try {
      upstream.always(completion())
      const key = await gw.createKey()
      expect((await adminCall(() => gw.url, token)("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: 1 } })).status).toBe(200)
      expect((await post(gw, key.secret)).status).toBe(200)
      storage.proxy.cut()
      try {
        await check(gw, key.secret)
      } finally {
        storage.proxy.restore()
      }
    } finally {
      await gw.stop()
    }
  }

  it("`deny` answers 503 billing_unavailable with Retry-After and sends nothing upstream", async () => {
    await duringOutage("deny", async (gw, secret) => {
      const before = upstream.requests.length
      const denied = await post(gw, secret)
      expect(denied.status).toBe(503)
      expect(denied.headers.get("retry-after")).toBe("2")
      expect(((await denied.json()) as any).error).toMatchObject({ type: "upstream_error", code: "billing_unavailable" })
      expect(upstream.requests.length).toBe(before)
      expect(await stats(gw)).toMatchObject({ deniedOnStoreFailure: 1, billingStoreFailures: 1 })
    })
  }, 30_000)

  it("`allow` serves the request unchecked and counts it; neither policy gives a 500", async () => {
    await duringOutage("allow", async (gw, secret) => {
      const before = upstream.requests.length
      expect((await post(gw, secret)).status).toBe(200)
      expect(upstream.requests.length).toBe(before + 1)
      expect(await stats(gw)).toMatchObject({ admittedOnStoreFailure: 1, billingStoreFailures: 1 })
    })
  }, 30_000)
})
