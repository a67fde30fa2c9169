import { describe, expect, it } from "@effect/vitest"
import { adminCall } from "../support/AdminClient.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"
import { eventually } from "./BillingSupport.ts"
import { post, runConcurrently } from "./Faults/SettlementSupport.ts"

const token = "admin-token-billing-bound-0123456789abcdef"

/** A dear model: $100 per million input tokens and $200 per million output tokens (100,000 and 200,000 nano-dollars a token). */
const dearConfig = (upstreamUrl: string) => ({
  providers: [{ id: "openai", kind: "openai", base_url: `${upstreamUrl}/v1`, api_key: "sk-upstream-secret" }],
  models: [{ id: "dear", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o" }], pricing: { input_per_mtok: 100, output_per_mtok: 200 } }],
  // 64 holds queue for one embedded session on a loaded machine: wait for them rather than refuse.
  resilience: { storage_timeout_ms: 60_000 }
})

/**
 * "hi" with max_tokens 11, where the provider bills 12 prompt tokens and all 11 output tokens
 * (3,400,000 nano-dollars): the old 4-bytes-a-token estimate held 5 prompt tokens (2,700,000),
 * so with 64 requests in flight the settlements overran the holds and the balance went below zero.
 */
describe("the hold never understates a request's cost", () => {
  const gw = useGateway({ config: ({ upstream }) => dearConfig(upstream.url), adminToken: token })
  const admin = adminCall(() => gw.url, token)

  it("$0.50 of credit, 64 concurrent requests until refused: the balance ends at or above zero and equals the ledger", async () => {
    gw.upstream.always({
      kind: "json",
      status: 200,
      body: openAiCompletion({ usage: { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23 } })
    })
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: 0.5 } })).status).toBe(200)
    const body = { model: "dear", max_tokens: 11, messages: [{ role: "user", content: "hi" }] }
    const statuses = await runConcurrently(256, 64, () => post(gw, key.secret, body))
    const served = statuses.filter((s) => s === 200).length
    expect(served).toBeGreaterThan(0)
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([])
    const ledger = await eventually(
      async () => {
        const status = (await admin("GET", `/admin/projects/${key.projectId}/billing`)).body as any
        const credits = (await admin("GET", `/admin/projects/${key.projectId}/credits?limit=10000`)).body as any
        return { reserved: status.reserved_usd as number, balance: BigInt(credits.balance_nano_usd), rebuilt: BigInt(credits.rebuilt_balance_nano_usd) }
      },
      (l) => l.reserved === 0 && l.balance === 500_000_000n - BigInt(served) * 3_400_000n,
      60_000
    )
    expect(ledger.balance).toBe(500_000_000n - BigInt(served) * 3_400_000n)
    expect(ledger.rebuilt).toBe(ledger.balance)
    expect(ledger.balance >= 0n).toBe(true)
  }, 120_000)
})
