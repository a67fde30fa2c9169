import { describe, expect, it } from "@effect/vitest"
import Anthropic from "@anthropic-ai/sdk"
import { adminCall } from "../support/AdminClient.ts"
import { useGateway } from "../support/UseGateway.ts"
import { billingConfig, completion } from "./BillingSupport.ts"

/**
 * Admission's refusals reach a Messages client in Anthropic's shape: a 402 `billing_error` and a
 * 429 `rate_limit_error` with `retry-after`, raised by the SDK as the classes it raises against
 * Anthropic, with the gateway's message (what to do next) and nothing sent upstream.
 */
const token = "admin-token-messages-0123456789abcdef"

describe("Messages refusals from admission", () => {
  const gw = useGateway({
    config: ({ upstream }) => billingConfig(upstream.url, { limits: { defaults: { key: { rpm: 2 } } } }),
    adminToken: token
  })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  const client = (secret: string) => new Anthropic({ apiKey: secret, baseURL: gw.url, maxRetries: 0 })
  const ask = (secret: string) => client(secret).messages.create({ model: "gpt-priced", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })

  it("402: a project whose balance cannot cover the worst case", async () => {
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount_usd: 1e-9, note: "test" } })).status).toBe(200)
    const error = await ask(key.secret).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    const apiError = error as InstanceType<typeof Anthropic.APIError>
    expect(apiError.status).toBe(402)
    expect(apiError.error).toMatchObject({ type: "error", error: { type: "billing_error" } })
    expect((apiError.error as { error: { message: string } }).error.message).toContain("credit balance")
    expect(upstream.requests).toHaveLength(0)
  })

  it("429: over the key's requests per minute, with retry-after", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    await ask(key.secret)
    await ask(key.secret)
    const error = await ask(key.secret).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    const limited = error as InstanceType<typeof Anthropic.RateLimitError>
    expect(limited.error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } })
    expect(Number(limited.headers?.get("retry-after"))).toBeGreaterThan(0)
    expect(upstream.requests).toHaveLength(2)
  })
})
