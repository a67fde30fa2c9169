import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { audioForm, fixture, fixtureBytes, fixtureName } from "../support/AudioUpstreams.ts"
import { useGateway } from "../support/UseGateway.ts"

/** The variable the provider's key reads; never set in the test environment. */
const variable = "GW_TEST_UNSET_PROVIDER_KEY"

describe("errors that say what to do", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [
        { id: "keyless", kind: "openai", base_url: `${upstream.url}/v1`, api_key: `\${${variable}:-}` },
        { id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }
      ],
      models: [
        { id: "chat-keyless", kind: "chat", deployments: [{ provider: "keyless", model: "gpt-4.1-mini" }], pricing: { per_request: 1 } },
        { id: "emb-keyless", kind: "embedding", deployments: [{ provider: "keyless", model: "text-embedding-3-small" }], pricing: { per_request: 1 } },
        { id: "img-keyless", kind: "image", deployments: [{ provider: "keyless", model: "gpt-image-1" }], image: { sizes: ["1024x1024"] }, pricing: { per_request: 1 } },
        { id: "stt-keyless", kind: "transcription", deployments: [{ provider: "keyless", model: "whisper-1" }], pricing: { per_request: 1 } },
        { id: "judge-keyless", kind: "decision", deployments: [{ provider: "keyless", model: "gpt-4.1-mini" }], capabilities: { logprobs: true }, pricing: { per_request: 1 } },
        // A keyless deployment beside a working one: the working one serves, nothing is refused.
        { id: "chat-mixed", kind: "chat", deployments: [{ provider: "keyless", model: "a" }, { provider: "openai", model: "b" }] },
        { id: "plain", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4.1-mini" }] },
        { id: "unknown-upstream", kind: "chat", deployments: [{ provider: "openai", model: "no-such-model" }] }
      ]
    }),
    key: { withUser: true }
  })
  const { upstream } = gw

  const expectKeyless = async (res: Response, model: string) => {
    expect(res.status).toBe(503)
    const body = (await res.json()) as { error: Record<string, unknown> }
    expect(body.error).toMatchObject({ type: "upstream_error", code: "provider_not_configured" })
    expect(body.error["message"]).toContain(`'${model}'`)
    expect(body.error["message"]).toContain("provider 'keyless' has no API key")
    expect(body.error["message"]).toContain(`set the environment variable ${variable}`)
  }

  it("a model whose provider has no key: 503 naming the provider and the variable, for every capability, nothing sent, nothing charged", async () => {
    const fresh = await gw.createKey({ withUser: true })
    const chat = { messages: [{ role: "user", content: "hi" }] }
    await expectKeyless(await gw.postJson("/v1/chat/completions", { model: "chat-keyless", ...chat }, fresh.secret), "chat-keyless")
    await expectKeyless(await gw.postJson("/v1/chat/completions", { model: "chat-keyless", stream: true, ...chat }, fresh.secret), "chat-keyless")
    await expectKeyless(await gw.postJson("/v1/embeddings", { model: "emb-keyless", input: "x" }, fresh.secret), "emb-keyless")
    await expectKeyless(await gw.postJson("/v1/images/generations", { model: "img-keyless", prompt: "a cat", response_format: "b64_json" }, fresh.secret), "img-keyless")
    const decision = { model: "judge-keyless", state: "s", questions: { q: { type: "noul", instructions: "Is it?", criteria: { true: "y", false: "n" } } } }
    await expectKeyless(await gw.postJson("/v1/decisions", decision, fresh.secret), "judge-keyless")
    const entry = fixture("audio/speech.wav")
    const form = audioForm({ name: fixtureName(entry), bytes: fixtureBytes(entry) }, { model: "stt-keyless" })
    await expectKeyless(await fetch(`${gw.url}/v1/audio/transcriptions`, { method: "POST", headers: gw.auth(fresh.secret), body: form }), "stt-keyless")
    expect(upstream.requests).toHaveLength(0)

    // The audio route records its usage once its staged upload is removed, just after answering.
    const usageRows = () => gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ status: number; cost: string; attempts: number }>`SELECT e.endpoint, e.streamed, e.status, e.cost_nano_usd::text AS cost, e.attempts
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${fresh.keyId}`
      })
    )
    let rows = await usageRows()
    for (let i = 0; i < 50 && rows.length < 6; i++) {
      await new Promise((r) => setTimeout(r, 50))
      rows = await usageRows()
    }
    expect(rows, JSON.stringify(rows)).toHaveLength(6)
    for (const row of rows) expect(row).toMatchObject({ status: 503, cost: "0" })
  })

  it("a keyless deployment beside a working one is skipped, not refused", async () => {
    upstream.always({ kind: "json", status: 200, body: { id: "c", object: "chat.completion", created: 1, model: "b", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] } })
    const res = await gw.postJson("/v1/chat/completions", { model: "chat-mixed", messages: [{ role: "user", content: "hi" }] })
    expect(res.status).toBe(200)
    expect(upstream.requests.map((r) => (r.body as { model: string }).model)).toEqual(["b"])
  })

  it("a capability the model does not state: 400 naming it and the config field that states it", async () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }]
    const res = await gw.postJson("/v1/chat/completions", { model: "plain", messages: [{ role: "user", content: "hi" }], tools })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: Record<string, unknown> }
    expect(body.error).toMatchObject({ param: "tools", code: "unsupported_parameter" })
    expect(body.error["message"]).toContain("does not support tools")
    expect(body.error["message"]).toContain("capabilities.tools: true")
  })

  it("a stream to a deployment the provider does not know names the route tried and the provider's answer", async () => {
    upstream.always({ kind: "json", status: 404, body: { error: { message: "The model `no-such-model` does not exist", type: "invalid_request_error", code: "model_not_found" } } })
    for (const stream of [false, true]) {
      const res = await gw.postJson("/v1/chat/completions", { model: "unknown-upstream", stream, messages: [{ role: "user", content: "hi" }] })
      expect(res.status).toBe(502)
      const message = ((await res.json()) as { error: { message: string } }).error.message
      expect(message).toContain("The provider call for model 'unknown-upstream' failed. Tried: unknown-upstream via openai (HTTP 404): error.")
      expect(message).toContain("The model `no-such-model` does not exist")
    }
  })

  it("files with a key that has no user: 403 saying how to make one that has", async () => {
    const projectKey = await gw.createKey()
    const res = await fetch(`${gw.url}/v1/files`, { headers: gw.auth(projectKey.secret) })
    expect(res.status).toBe(403)
    const body = (await res.json()) as { error: Record<string, unknown> }
    expect(body.error["code"]).toBe("key_without_user")
    expect(body.error["message"]).toContain("npm run admin -- keys create --project <project_id> --user <user_id>")
  })

  it("the admin API when it is off: 404 saying it is disabled and how to enable it", async () => {
    for (const path of ["/admin/projects", "/admin", "/admin/openapi.json"]) {
      const res = await fetch(`${gw.url}${path}`, { headers: { authorization: "Bearer anything" } })
      expect(res.status).toBe(404)
      const body = (await res.json()) as { error: Record<string, unknown> }
      expect(body.error).toMatchObject({ type: "not_found_error", code: "admin_api_disabled" })
      expect(body.error["message"]).toContain("GATEWAY_ADMIN_TOKEN")
    }
  })

  it("the console when it is off: 404 saying it is disabled and how to enable it, not an unknown URL", async () => {
    for (const path of ["/console", "/console/", "/console/index.html", "/console/session"]) {
      const res = await fetch(`${gw.url}${path}`)
      expect(res.status, path).toBe(404)
      const body = (await res.json()) as { error: Record<string, unknown> }
      expect(body.error).toMatchObject({ type: "not_found_error", code: "console_disabled" })
      expect(body.error["message"]).toContain("Set GATEWAY_ADMIN_TOKEN")
      expect(body.error["message"]).toContain("open /console and sign in with it")
    }
  })
})
