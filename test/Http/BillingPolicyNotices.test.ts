import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminCall } from "../support/AdminClient.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { sharedPostgres } from "../support/SharedPostgres.ts"
import type { TestStorage } from "../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../support/TestGateway.ts"
import { billingConfig, completion, eventually, hi } from "./BillingSupport.ts"

const token = "admin-token-policy-notices-0123456789abcdef"

const post = (gw: TestGateway, secret: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(hi())
  }).then(async (r) => {
    await r.arrayBuffer()
    return r.status
  })

/**
 * A change made on one instance is in force on the other through the database's notice, not
 * the periodic reload: the reload period here is an hour, so without the notice the second
 * instance would keep its old policies for the whole test. Polled, never timed.
 */
describe("credit and limit changes reach every instance on one Postgres at once", () => {
  const upstream = new FakeUpstream()
  let storage: TestStorage
  let a: TestGateway
  let b: TestGateway

  beforeAll(async () => {
    storage = await sharedPostgres()
    await upstream.start()
    const config = billingConfig(upstream.url, { billing: { refresh_seconds: 3600 } })
    a = await startGateway({ storage, adminToken: token, config })
    b = await startGateway({ storage, adminToken: token, config })
  }, 60_000)
  afterAll(async () => {
    await b?.stop()
    await a?.stop()
    await upstream.stop()
    await storage?.cleanup()
  })

  it("a spend limit set on A refuses on B; a credit grant on A is charged on B", async () => {
    upstream.always(completion())
    const key = await a.createKey()
    const admin = adminCall(() => a.url, token)
    // B has served the key unbilled before the change: its policies say "not billed".
    expect(await post(b, key.secret)).toBe(200)
    expect((await admin("POST", `/admin/projects/${key.projectId}/spend-limits`, { body: { period: "day", limit_usd: 0.00001 } })).status).toBe(200)
    const refused = await eventually(() => post(b, key.secret), (status) => status === 402, 15_000)
    expect(refused).toBe(402)

    const other = await a.createKey()
    expect(await post(b, other.secret)).toBe(200)
    expect((await admin("POST", `/admin/projects/${other.projectId}/credits`, { body: { amount_usd: 1 } })).status).toBe(200)
    const ledger = () => admin("GET", `/admin/projects/${other.projectId}/credits`).then((r) => r.body as any)
    // Requests on B until one is settled against the grant made on A.
    const charged = await eventually(
      async () => {
        expect(await post(b, other.secret)).toBe(200)
        return ledger()
      },
      (l) => l.data.some((e: any) => e.kind === "settlement"),
      15_000
    )
    expect(charged.data.some((e: any) => e.kind === "settlement")).toBe(true)
  }, 60_000)

  it("a rate limit set on A is enforced on B", async () => {
    upstream.always(completion())
    const key = await a.createKey()
    expect(await post(b, key.secret)).toBe(200)
    const admin = adminCall(() => a.url, token)
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 1, tpm: null } })).status).toBe(200)
    const limited = await eventually(() => post(b, key.secret), (status) => status === 429, 15_000)
    expect(limited).toBe(429)
  }, 60_000)
})
