import { describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { adminCall } from "../support/AdminClient.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"
import { actualNano, billingConfig, completion, eventually, hi, worstCaseNano } from "./BillingSupport.ts"

const token = "admin-token-billing-0123456789abcdef"

describe("credits and spend limits (402)", () => {
  const gw = useGateway({ config: ({ upstream }) => billingConfig(upstream.url, { billing: { require_prices: true } }), adminToken: token })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  const status = async (projectId: string) => (await admin("GET", `/admin/projects/${projectId}/billing`)).body as Record<string, any>
  const settled = (projectId: string) => eventually(() => status(projectId), (s) => s.reserved_usd === 0)
  const grant = (projectId: string, nano: number) => admin("POST", `/admin/projects/${projectId}/credits`, { body: { amount_usd: nano / 1e9, note: "test" } })

  it("a project with no balance and no limits is not checked: no rate-limit headers, nothing reserved", async () => {
    upstream.always(completion())
    const res = await gw.postJson("/v1/chat/completions", hi())
    expect(res.status).toBe(200)
    expect(res.headers.get("x-ratelimit-limit-requests")).toBeNull()
    expect((await status(gw.key.projectId)).balance_usd).toBeNull()
  })

  it("admits while the balance covers the worst case, settles the actual cost, then answers 402 with nothing sent upstream", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    expect((await grant(key.projectId, 320_000)).status).toBe(200)
    const client = openAiClient(gw.url, key.secret)
    const answers: Array<number> = []
    for (let i = 0; i < 4; i++) {
      try {
        await client.chat.completions.create({ model: "gpt-priced", messages: [{ role: "user", content: "hi" }] })
        answers.push(200)
      } catch (error) {
        expect(error).toBeInstanceOf(OpenAI.APIError)
        const apiError = error as InstanceType<typeof OpenAI.APIError>
        answers.push(apiError.status ?? 0)
        expect(apiError.type).toBe("billing_error")
        expect(apiError.code).toBe("insufficient_balance")
        expect(apiError.message).toContain("credit balance")
      }
      await settled(key.projectId)
    }
    // 320,000 -> 281,000 -> 242,000 -> 203,000 left, below the 227,000 worst case.
    expect(answers).toEqual([200, 200, 200, 402])
    expect(upstream.requests).toHaveLength(3)
    const after = await status(key.projectId)
    expect(after.balance_usd).toBeCloseTo((320_000 - 3 * actualNano) / 1e9, 12)
    expect(after.spend.total_usd).toBeCloseTo((3 * actualNano) / 1e9, 12)
    const ledger = (await admin("GET", `/admin/projects/${key.projectId}/credits`)).body as Record<string, any>
    expect(ledger.data.map((e: any) => [e.kind, e.amount_nano_usd])).toEqual([["settlement", `-${actualNano}`], ["settlement", `-${actualNano}`], ["settlement", `-${actualNano}`], ["grant", "320000"]])
    expect(ledger.rebuilt_balance_nano_usd).toBe(String(320_000 - 3 * actualNano))
    expect(ledger.balance_nano_usd).toBe(ledger.rebuilt_balance_nano_usd)
  })

  it("concurrent requests: exactly as many are admitted as their reservations fit, and the ledger rebuilds the balance", async () => {
    upstream.always(completion(150))
    const key = await gw.createKey()
    await grant(key.projectId, 1_000_000)
    const answers = await Promise.all(Array.from({ length: 10 }, () => gw.postJson("/v1/chat/completions", hi(), key.secret).then((r) => r.status)))
    expect(answers.filter((s) => s === 200)).toHaveLength(Math.floor(1_000_000 / worstCaseNano))
    expect(answers.filter((s) => s === 402)).toHaveLength(10 - Math.floor(1_000_000 / worstCaseNano))
    const expected = (1_000_000 - 4 * actualNano) / 1e9
    const after = await eventually(() => status(key.projectId), (s) => s.reserved_usd === 0 && s.balance_usd === expected)
    expect(after.balance_usd).toBe(expected)
    const ledger = (await admin("GET", `/admin/projects/${key.projectId}/credits`)).body as Record<string, any>
    expect(ledger.rebuilt_balance_nano_usd).toBe(String(1_000_000 - 4 * actualNano))
    expect(ledger.balance_nano_usd).toBe(ledger.rebuilt_balance_nano_usd)
  })

  it("a key's and a project's spend limits refuse by name, streams included", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    const other = await gw.createKey({ projectId: key.projectId })
    expect((await admin("POST", `/admin/projects/${key.projectId}/spend-limits`, { body: { period: "day", limit_usd: 0.00024, key_id: key.keyId } })).status).toBe(200)
    expect((await gw.postJson("/v1/chat/completions", hi(), key.secret)).status).toBe(200)
    await settled(key.projectId)
    const refused = await gw.postJson("/v1/chat/completions", hi(), key.secret)
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as any).error).toMatchObject({ type: "billing_error", code: "key_spend_limit_reached" })
    // The other key of the project is not limited.
    expect((await gw.postJson("/v1/chat/completions", hi(), other.secret)).status).toBe(200)
    await settled(key.projectId)
    await admin("POST", `/admin/projects/${key.projectId}/spend-limits`, { body: { period: "month", limit_usd: 0.0001 } })
    const project = await gw.postJson("/v1/chat/completions", { ...hi(), stream: true }, other.secret)
    expect(project.status).toBe(402)
    expect(((await project.json()) as any).error.code).toBe("project_spend_limit_reached")
    const view = await status(key.projectId)
    expect(view.spend_limits).toHaveLength(2)
    expect(view.spend.day_usd).toBeCloseTo((2 * actualNano) / 1e9, 12)
    // Cleared: admitted again.
    await admin("POST", `/admin/projects/${key.projectId}/spend-limits`, { body: { period: "month", limit_usd: null } })
    expect((await gw.postJson("/v1/chat/completions", hi(), other.secret)).status).toBe(200)
  })

  it("with billing.require_prices a billed project cannot use a model without a price (400 naming it); others can", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    await grant(key.projectId, 1_000_000)
    const res = await gw.postJson("/v1/chat/completions", hi("gpt-unpriced"), key.secret)
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error).toMatchObject({ param: "model", code: "model_not_priced" })
    expect((await gw.postJson("/v1/chat/completions", hi("gpt-unpriced"))).status).toBe(200)
  })

  it("admin input is checked: unknown project 404, key of another project 404, bad amount 400", async () => {
    expect((await admin("POST", "/admin/projects/proj_nope/credits", { body: { amount_usd: 1 } })).status).toBe(404)
    const a = await gw.createKey()
    const b = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${a.projectId}/spend-limits`, { body: { period: "day", limit_usd: 1, key_id: b.keyId } })).status).toBe(404)
    expect((await admin("POST", `/admin/projects/${a.projectId}/credits`, { body: { amount_usd: -1 } })).status).toBe(400)
  })
})
