import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Admission } from "../../src/Services/Billing/Admission.ts"
import { adminCall } from "../support/AdminClient.ts"
import { useGateway } from "../support/UseGateway.ts"
import { actualNano, billingConfig, completion, eventually, worstCaseNano } from "./BillingSupport.ts"

const token = "admin-token-billing-leases-0123456789abcdef"

/** A model twenty times dearer than the billing tests' usual one: its hold and cost are twenty times theirs. */
const dearWorst = 20 * worstCaseNano
const dearActual = 20 * actualNano

const config = (upstreamUrl: string) => {
  const base = billingConfig(upstreamUrl, { billing: { leases: { enabled: true, min_rate: 0 } } })
  return {
    ...base,
    models: [
      ...base.models,
      {
        id: "gpt-dear",
        kind: "chat",
        deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
        capabilities: { max_output_tokens: 100 },
        pricing: { input_per_mtok: 20, output_per_mtok: 40 }
      }
    ]
  }
}

describe("leases down to the last cent", () => {
  const gw = useGateway({ config: ({ upstream }) => config(upstream.url), adminToken: token })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  const stats = () => gw.runtime.runPromise(Effect.map(Effect.service(Admission), (a) => ({ ...a.stats })))

  it("three cents serve exactly the requests they can pay for, every one from the lease, then 402 with nothing sent upstream", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    const balance = 30_000_000
    expect((await admin("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: balance / 1e9 } })).status).toBe(200)
    // Request i is admitted while what is left after i settlements covers the worst case.
    const payable = Math.floor((balance - dearWorst) / dearActual) + 1
    const before = await stats()
    const answers: Array<number> = []
    for (let i = 0; i <= payable; i++) {
      const res = await gw.postJson("/v1/chat/completions", { model: "gpt-dear", messages: [{ role: "user", content: "hi" }] }, key.secret)
      answers.push(res.status)
      await res.arrayBuffer()
      // The settlement happens when the request's scope closes, just after the response.
      await eventually(stats, (s) => s.settled - before.settled === answers.filter((a) => a === 200).length)
    }
    expect(answers.filter((a) => a === 200)).toHaveLength(payable)
    expect(answers.at(-1)).toBe(402)
    expect(upstream.requests).toHaveLength(payable)
    const after = await stats()
    expect(after.leased - before.leased).toBe(payable)
    const expected = String(balance - payable * dearActual)
    // Settlements are written in batches and the slice handed back once the key goes quiet.
    const ledger = await eventually(
      async () => ({
        credits: (await admin("GET", `/admin/projects/${key.projectId}/credits`)).body as any,
        billing: (await admin("GET", `/admin/projects/${key.projectId}/billing`)).body as any
      }),
      (l) => l.credits.balance_nano_usd === expected && l.billing.reserved_usd === 0,
      30_000
    )
    expect(ledger.credits.balance_nano_usd).toBe(expected)
    expect(ledger.credits.rebuilt_balance_nano_usd).toBe(expected)
    expect(ledger.billing.reserved_usd).toBe(0)
    // Every served request settled once: a key's leased requests of one batch share a row.
    const settlements = ledger.credits.data.filter((e: any) => e.kind === "settlement")
    expect(settlements.reduce((n: number, e: any) => n + e.requests, 0)).toBe(payable)
  }, 120_000)
})
