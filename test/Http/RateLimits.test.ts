import { describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { adminCall } from "../support/AdminClient.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"
import { billingConfig, completion, eventually, hi } from "./BillingSupport.ts"

const token = "admin-token-rate-limits-0123456789abcdef"

describe("rate limits (429)", () => {
  const gw = useGateway({
    config: ({ upstream }) => billingConfig(upstream.url, { limits: { defaults: { key: { rpm: 3 } } } }),
    adminToken: token
  })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)

  it("the configured default RPM per key: headers on every response, then a RateLimitError with Retry-After", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    const remaining: Array<string | null> = []
    for (let i = 0; i < 3; i++) {
      const res = await gw.postJson("/v1/chat/completions", hi(), key.secret)
      expect(res.status).toBe(200)
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("3")
      expect(res.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(\.\d+)?m?s$|^\d+m\d+(\.\d+)?s$/)
      remaining.push(res.headers.get("x-ratelimit-remaining-requests"))
    }
    expect(remaining).toEqual(["2", "1", "0"])
    const client = openAiClient(gw.url, key.secret)
    const error = await client.chat.completions.create({ model: "gpt-priced", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>
    expect(limited.status).toBe(429)
    expect(limited.type).toBe("rate_limit_error")
    expect(limited.code).toBe("rate_limit_exceeded")
    const retryAfter = limited.headers.get("retry-after")
    expect(retryAfter).toMatch(/^\d+$/)
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(retryAfter)).toBeLessThanOrEqual(60)
    expect(Number(limited.headers.get("retry-after-ms"))).toBeGreaterThan(0)
    expect(limited.headers.get("x-ratelimit-remaining-requests")).toBe("0")
    expect(upstream.requests).toHaveLength(3)
    // Another key is counted on its own.
    const other = await gw.createKey()
    expect((await gw.postJson("/v1/chat/completions", hi(), other.secret)).status).toBe(200)
  })

  it("TPM is charged the prompt plus the output cap at admission and corrected to the usage at settlement", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    // Each request is admitted as 105 tokens and uses 29 (see BillingSupport).
    expect((await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 100, tpm: 250 } })).status).toBe(200)
    const first = await gw.postJson("/v1/chat/completions", hi(), key.secret)
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("145")
    // Settled: 29 counted instead of 105, so three more fit where one would without the correction.
    for (let i = 0; i < 2; i++) {
      const res = await eventually(() => gw.postJson("/v1/chat/completions", hi(), key.secret), (r) => r.status === 200, 2_000)
      expect(res.status).toBe(200)
    }
    const big = await gw.postJson("/v1/chat/completions", { ...hi(), max_completion_tokens: 400 }, key.secret)
    expect(big.status).toBe(429)
    expect(((await big.json()) as any).error.code).toBe("request_too_large")
  })

  it("a project's limit on one model applies to that model only", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 100, tpm: null } })
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { model: "gpt-unpriced", rpm: 1, tpm: null } })
    expect((await gw.postJson("/v1/chat/completions", hi("gpt-unpriced"), key.secret)).status).toBe(200)
    expect((await gw.postJson("/v1/chat/completions", hi("gpt-unpriced"), key.secret)).status).toBe(429)
    expect((await gw.postJson("/v1/chat/completions", hi(), key.secret)).status).toBe(200)
    const view = (await admin("GET", `/admin/projects/${key.projectId}/billing`)).body as any
    expect(view.rate_limits).toEqual([
      { key_id: null, model: "gpt-unpriced", rpm: 1, tpm: null },
      { key_id: key.keyId, model: null, rpm: 100, tpm: null }
    ])
  })

  it("a stream carries the headers too, and its tokens are settled from the stream's usage", async () => {
    upstream.always({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"], { usage: true }) })
    const key = await gw.createKey()
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 10, tpm: 1000 } })
    const res = await gw.postJson("/v1/chat/completions", { ...hi(), stream: true }, key.secret)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("9")
    expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe(String(1000 - 105))
    expect(parseSse(await res.text()).done).toBe(true)
    // The usage chunk reported 15 tokens. Probed with a request too large to fit, which is refused
    // without being charged, and whose 429 still shows what is left.
    const probe = () => gw.postJson("/v1/chat/completions", { ...hi(), max_completion_tokens: 5_000 }, key.secret)
    const settled = await eventually(probe, (r) => r.headers.get("x-ratelimit-remaining-tokens") === String(1000 - 15), 2_000)
    expect(settled.status).toBe(429)
    expect(settled.headers.get("x-ratelimit-remaining-tokens")).toBe(String(1000 - 15))
    expect(settled.headers.get("x-ratelimit-remaining-requests")).toBe("9")
  })

  it("an error answer after admission carries the headers too", async () => {
    upstream.always({ kind: "json", status: 400, body: { error: { message: "bad", type: "invalid_request_error", param: null, code: null } } })
    const key = await gw.createKey()
    const res = await gw.postJson("/v1/chat/completions", hi(), key.secret)
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(res.headers.get("x-ratelimit-limit-requests")).toBe("3")
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("2")
    expect(((await res.json()) as any).error.message).toBeTypeOf("string")
  })

  it("every model endpoint is admitted by the same step: embeddings count against the same RPM", async () => {
    upstream.always(completion())
    const key = await gw.createKey()
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 1, tpm: null } })
    expect((await gw.postJson("/v1/chat/completions", hi(), key.secret)).status).toBe(200)
    const res = await gw.postJson("/v1/embeddings", { model: "gpt-priced", input: "x" }, key.secret)
    expect(res.status).toBe(429)
    expect(res.headers.get("x-ratelimit-limit-requests")).toBe("1")
  })

  it("file uploads are not priced but count against RPM", async () => {
    const key = await gw.createKey({ withUser: true })
    await admin("POST", `/admin/projects/${key.projectId}/rate-limits`, { body: { key_id: key.keyId, rpm: 1, tpm: null } })
    const upload = () => {
      const form = new FormData()
      form.append("purpose", "user_data")
      form.append("file", new Blob(["hello"], { type: "text/plain" }), "a.txt")
      return fetch(`${gw.url}/v1/files`, { method: "POST", headers: gw.auth(key.secret), body: form })
    }
    const first = await upload()
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("0")
    const second = await upload()
    expect(second.status).toBe(429)
    expect(second.headers.get("retry-after")).toMatch(/^\d+$/)
  })
})
