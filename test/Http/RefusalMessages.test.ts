import { describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { adminCall } from "../support/AdminClient.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"
import { completion, eventually, hi } from "./BillingSupport.ts"

const token = "admin-token-refusal-messages-0123456789"

/**
 * Every refusal of admission and authentication names its cause and the fix, as the client
 * reads it: the model that set a 402's worst case, the limit and scope of a 429 (and whether
 * waiting helps), the scopes a 403's key has.
 */
describe("refusals that name their cause and the fix", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream" }],
      models: [
        {
          id: "gpt-small",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4.1-mini" }],
          capabilities: { max_output_tokens: 1_000 },
          pricing: { input_per_mtok: 0.4, output_per_mtok: 1.6 },
          fallbacks: ["gpt-big"]
        },
        {
          id: "gpt-big",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4.1" }],
          capabilities: { max_output_tokens: 64_000 },
          pricing: { input_per_mtok: 2, output_per_mtok: 15 }
        }
      ]
    }),
    adminToken: token
  })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  const grant = (projectId: string, usd: number) => admin("POST", `/admin/projects/${projectId}/credits`, { body: { amount_usd: usd } })
  const errorOf = async (res: Response) => ((await res.json()) as { error: { message: string; code: string | null; type: string } }).error

  it("402 names the fallback model whose output cap set the worst case and suggests max_tokens; a small max_tokens then passes", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    expect((await grant(key.projectId, 0.01)).status).toBe(200)
    const refused = await gw.postJson("/v1/chat/completions", hi("gpt-small"), key.secret)
    expect(refused.status).toBe(402)
    const error = await errorOf(refused)
    expect(error.code).toBe("insufficient_balance")
    // 64,000 output tokens at $15 per million, plus the prompt at the fallback's input price.
    expect(error.message).toMatch(/may cost up to \$0\.9600\d\d and \$0\.010000 is available/)
    expect(error.message).toContain("the fallback model 'gpt-big' writing 64,000 tokens, its output cap (max_output_tokens in its catalogue entry)")
    expect(error.message).toContain("send a smaller max_tokens")
    expect(error.message).toContain("add credit")
    expect(upstream.requests).toHaveLength(0)

    const capped = await gw.postJson("/v1/chat/completions", { ...hi("gpt-small"), max_tokens: 100 }, key.secret)
    expect(capped.status).toBe(200)
    // Settled before the next test's statements (its settlement is written after the response).
    const billing = () => admin("GET", `/admin/projects/${key.projectId}/billing`).then((r) => r.body as { reserved_usd: number })
    expect((await eventually(billing, (b) => b.reserved_usd === 0)).reserved_usd).toBe(0)
  })

  it("402 with the request's own max_tokens says to lower it", async () => {
    const key = await gw.createKey()
    expect((await grant(key.projectId, 0.01)).status).toBe(200)
    const error = await errorOf(await gw.postJson("/v1/chat/completions", { ...hi("gpt-small"), max_tokens: 10_000 }, key.secret))
    expect(error.message).toContain("The worst case is the fallback model 'gpt-big' writing the 10,000 tokens the request allows; lower max_tokens")
  })

  it("402 of a spend limit names the period and the model", async () => {
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/spend-limits`, { body: { period: "day", limit_usd: 0.01 } })).status).toBe(200)
    const error = await errorOf(await gw.postJson("/v1/chat/completions", hi("gpt-small"), key.secret))
    expect(error.code).toBe("project_spend_limit_reached")
    expect(error.message).toContain("The project's day spend limit cannot cover this request")
    expect(error.message).toContain("'gpt-big'")
    expect(error.message).toContain("Or raise the project's day limit, or wait for the next day.")
  })

  it("429 names the key's RPM limit and its number, with Retry-After", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 1 } })).status).toBe(200)
    expect((await gw.postJson("/v1/chat/completions", { ...hi("gpt-small"), max_tokens: 5 }, key.secret)).status).toBe(200)
    const error = await openAiClient(gw.url, key.secret)
      .chat.completions.create({ model: "gpt-small", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>
    expect(limited.code).toBe("rate_limit_exceeded")
    expect(limited.message).toContain(`Rate limit reached: the API key ${key.keyId} allows 1 requests per minute (rpm).`)
    expect(limited.message).toMatch(/Retry after \d+ s \(the Retry-After header\)/)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  })

  it("429 of a project's TPM names the project, the limit and the request's tokens", async () => {
    // The first request stays open upstream until the second was refused: its admitted tokens
    // stay in the window (a finished call's count is corrected to its usage).
    upstream.always({ kind: "hang" })
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { tpm: 300 } })).status).toBe(200)
    const abort = new AbortController()
    const body = JSON.stringify({ ...hi("gpt-small"), max_tokens: 200 })
    const first = fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { ...gw.auth(key.secret), "content-type": "application/json" }, body, signal: abort.signal })
      .catch((e: unknown) => e)
    await eventually(async () => upstream.requests.length, (n) => n === 1)
    const res = await gw.postJson("/v1/chat/completions", { ...hi("gpt-small"), max_tokens: 200 }, key.secret)
    abort.abort()
    expect(await first).toBeInstanceOf(Error)
    expect(res.status).toBe(429)
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/)
    const error = await errorOf(res)
    expect(error.message).toMatch(new RegExp(`^Rate limit reached: the project ${key.projectId} allows 300 tokens per minute \\(tpm\\); this request counts \\d+ \\(its input plus its output cap\\)\\. Retry after`))
  })

  it("429 for a request larger than the TPM limit: no Retry-After, and the message says waiting will not help", async () => {
    const key = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { model: "gpt-small", tpm: 50 } })).status).toBe(200)
    const res = await gw.postJson("/v1/chat/completions", { ...hi("gpt-small"), max_tokens: 100 }, key.secret)
    expect(res.status).toBe(429)
    expect(res.headers.get("retry-after")).toBeNull()
    expect(res.headers.get("retry-after-ms")).toBeNull()
    const error = await errorOf(res)
    expect(error.code).toBe("request_too_large")
    expect(error.message).toContain(`more than the project ${key.projectId}'s limit on the model 'gpt-small' allows in a minute: 50 tokens per minute (tpm)`)
    expect(error.message).toContain("Waiting will not help, so no Retry-After is set")
    expect(error.message).toContain("max_tokens")
  })

  it("403 lists the key's scopes and says how to get the missing one", async () => {
    const key = await gw.createKey({ scopes: ["chat", "models"] })
    const res = await gw.postJson("/v1/embeddings", { model: "gpt-small", input: "x" }, key.secret)
    expect(res.status).toBe(403)
    const error = await errorOf(res)
    expect(error.code).toBe("missing_scope")
    expect(error.message).toContain("does not have the 'embeddings' scope")
    expect(error.message).toContain("its scopes are chat, models")
    expect(error.message).toContain(`An admin can add 'embeddings' to this key (the console's Keys page, or POST /admin/keys/${key.keyId}/scopes with {"scopes":["chat","models","embeddings"]})`)
    expect(error.message).toContain("or create a new key with it (npm run admin -- keys create --project <project_id> --scopes chat,models,embeddings)")
  })

  it("admin API: a rate limit with only rpm (or only tpm) is accepted; neither is refused naming both", async () => {
    const key = await gw.createKey()
    const path = `/admin/projects/${key.projectId}/rate-limits`
    expect((await admin("POST", path, { body: { rpm: 2 } })).status).toBe(200)
    const onlyTpm = await admin("POST", path, { body: { key_id: key.keyId, tpm: 1000 } })
    expect(onlyTpm.status).toBe(200)
    expect((onlyTpm.body as { rate_limits: unknown }).rate_limits).toEqual([
      { key_id: null, model: null, rpm: 2, tpm: null },
      { key_id: key.keyId, model: null, rpm: null, tpm: 1000 }
    ])
    const neither = await admin("POST", path, { body: {} })
    expect(neither.status).toBe(400)
    expect((neither.body as { error: { message: string; param: string } }).error).toMatchObject({ param: "rpm", message: expect.stringContaining("Give 'rpm', 'tpm' or both") })
  })

  it("admin API: {amount: 5} says to use amount_usd", async () => {
    const key = await gw.createKey()
    const reply = await admin("POST", `/admin/projects/${key.projectId}/credits`, { body: { amount: 5 } })
    expect(reply.status).toBe(400)
    const error = (reply.body as { error: { message: string; param: string } }).error
    expect(error.param).toBe("amount")
    expect(error.message).toBe("Invalid value for 'amount': expected no excess property. Did you mean 'amount_usd'?")
  })
})
