import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { anthropicMessage } from "../support/AnthropicFixtures.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * The translation report in every dialect: `x-gateway-translation` names what the serving
 * provider's codec rewrote or dropped of the client's fields, the usage row keeps it, and strict
 * mode (header, key, project) refuses such a request with a 400 naming the field before
 * anything goes upstream.
 */
const messagesHeaders = { "anthropic-version": "2023-06-01" }

describe("translation report and strict mode", () => {
  const gw = useGateway({
    upstreams: ["openai", "anthropic"],
    config: (up) => ({
      providers: [
        { id: "openai", kind: "openai", base_url: `${up.openai.url}/v1`, api_key: "sk-up" },
        { id: "anthropic", kind: "anthropic", base_url: `${up.anthropic.url}/v1`, api_key: "sk-ant-up" }
      ],
      models: [
        { id: "gpt", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o" }], capabilities: { tools: true } },
        { id: "claude", kind: "chat", deployments: [{ provider: "anthropic", model: "claude-sonnet-4-5" }], capabilities: { tools: true } }
      ]
    })
  })
  const { openai, anthropic } = gw.upstreams

  const detailOf = (keyId: string) =>
    gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ detail: unknown }>`SELECT e.detail FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${keyId}`
        return rows.map((r) => (typeof r.detail === "string" ? JSON.parse(r.detail) : r.detail) as Record<string, unknown> | null)
      })
    )

  it("chat completions: max_tokens to OpenAI is reported rewritten; the usage row keeps the report", async () => {
    openai.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const key = await gw.createKey()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }, key.secret)
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-translation")).toBe("rewritten=max_tokens->max_completion_tokens")
    expect(await detailOf(key.keyId)).toEqual([{ translation: "rewritten=max_tokens->max_completion_tokens" }])
  })

  it("chat completions: seed to Anthropic is dropped, and strict mode refuses it naming seed, before any upstream call", async () => {
    anthropic.reply({ kind: "json", status: 200, body: anthropicMessage() })
    const lax = await gw.postJson("/v1/chat/completions", { model: "claude", seed: 7, messages: [{ role: "user", content: "hi" }] })
    expect(lax.status).toBe(200)
    expect(lax.headers.get("x-gateway-translation")).toBe("dropped=seed")
    anthropic.reset()
    const strict = await gw.postJson("/v1/chat/completions", { model: "claude", seed: 7, messages: [{ role: "user", content: "hi" }] }, {
      headers: { "x-gateway-strict": "true" }
    })
    expect(strict.status).toBe(400)
    const body = (await strict.json()) as { error: { param: string; code: string; message: string } }
    expect(body.error).toMatchObject({ param: "seed", code: "strict_translation" })
    expect(body.error.message).toContain("'seed'")
    expect(anthropic.requests).toHaveLength(0)
  })

  it("messages: top_k to OpenAI is dropped and named; strict mode refuses it in Anthropic's error shape", async () => {
    openai.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const body = { model: "gpt", max_tokens: 50, top_k: 3, messages: [{ role: "user", content: "hi" }] }
    const lax = await gw.postJson("/v1/messages", body, { headers: messagesHeaders })
    expect(lax.status).toBe(200)
    expect(lax.headers.get("x-gateway-translation")).toBe("dropped=top_k; rewritten=max_tokens->max_completion_tokens")
    const strict = await gw.postJson("/v1/messages", body, { headers: { ...messagesHeaders, "x-gateway-strict": "true" } })
    expect(strict.status).toBe(400)
    const error = (await strict.json()) as { type: string; error: { type: string; message: string } }
    expect(error.type).toBe("error")
    expect(error.error.type).toBe("invalid_request_error")
    expect(error.error.message).toContain("'top_k'")
    expect(openai.requests).toHaveLength(1)
  })

  it("a strict key, and every key of a strict project, are refused without the header", async () => {
    const strictKey = await gw.createKey({ strictKey: true })
    const strictProject = await gw.createKey({ strictProject: true })
    for (const key of [strictKey, strictProject]) {
      const res = await gw.postJson("/v1/chat/completions", { model: "claude", seed: 1, messages: [{ role: "user", content: "hi" }] }, key.secret)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe("seed")
    }
    expect(anthropic.requests).toHaveLength(0)
  })

  it("a strict request that drops nothing goes through; a native Messages request never drops", async () => {
    anthropic.reply({ kind: "json", status: 200, body: anthropicMessage() })
    const key = await gw.createKey({ strictKey: true })
    const res = await gw.postJson(
      "/v1/messages",
      { model: "claude", max_tokens: 50, top_k: 3, metadata: { user_id: "u" }, messages: [{ role: "user", content: "hi" }] },
      { key: key.secret, headers: messagesHeaders }
    )
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-translation")).toBeNull()
    expect(await detailOf(key.keyId)).toEqual([{ dialect: "messages" }])
  })
})
