import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SpanKind } from "@opentelemetry/api"
import { Effect, Layer } from "effect"
import { ApiKeyView, ProjectView, UserView } from "../../../src/Domain/ApiKey.ts"
import { CreditLedgerView, BillingStatusView } from "../../../src/Domain/BillingView.ts"
import { CreatedKey } from "../../../src/Http/Admin/AdminSchemas.ts"
import { Deleted, KeyUsageList, ProjectOverview, RequestLogEntry, RequestLogList, RotatedKey } from "../../../src/Http/Admin/OperationsSchemas.ts"
import { tracingLayer } from "../../../src/Observability.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { adminCall, expectBody, expectEnvelope, listOf } from "../../support/AdminClient.ts"
import { openAiCompletion } from "../../support/OpenAiFixtures.ts"
import { useGateway } from "../../support/UseGateway.ts"

const token = "admin-console-operations-0123456789abcdef"

describe("admin endpoints behind the console's overview, request log and key operations", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    adminToken: token,
    key: false,
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream-operations-01" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }], pricing: { input_per_mtok: 1, output_per_mtok: 2 } }]
    })
  })
  const call = adminCall(() => gw.url, token)
  const flush = () => gw.runtime.runPromise(Effect.gen(function* () {
    yield* (yield* UsageLedger).flush
  }))
  const chat = (secret: string, model = "gpt-test") =>
    gw.postJson("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] }, secret)
  const setUp = async () => {
    const project = expectBody(ProjectView, await call("POST", "/admin/projects", { body: { name: "ops" } }))
    const created = expectBody(CreatedKey, await call("POST", `/admin/projects/${project.id}/keys`, { body: { name: "ci", scopes: ["chat"] } }))
    return { projectId: project.id, keyId: created.key.id, secret: created.secret }
  }

  it("lists requests newest first with key, model, status, tokens, cost, error code and trace id; filters and pages", async () => {
    const { projectId, keyId, secret } = await setUp()
    exporter.reset()
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } }) })
    const ok = await chat(secret)
    expect(ok.status).toBe(200)
    const okId = ok.headers.get("x-request-id") ?? ""
    const refused = await chat(secret, "no-such-model")
    expect(refused.status).toBe(404)
    const refusedId = refused.headers.get("x-request-id") ?? ""
    await flush()

    const log = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests`))
    expect(log.has_more).toBe(false)
    expect(log.data.map((r) => r.request_id)).toEqual([refusedId, okId])
    const [failed, served] = log.data
    expect(served).toMatchObject({
      key_id: keyId, key_name: "ci", endpoint: "chat", model: "gpt-test", provider: "openai", status: 200,
      prompt_tokens: 11, completion_tokens: 7, cost_usd: 0.000025, cost_nano_usd: "25000", error_code: null
    })
    // The usage row names the trace the request's SERVER span belongs to.
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.attributes["http.route"] === "/v1/chat/completions")
    expect(served?.trace_id).toMatch(/^[0-9a-f]{32}$/)
    expect(exporter.getFinishedSpans().some((s) => s.spanContext().traceId === served?.trace_id)).toBe(true)
    expect(server).toBeDefined()
    expect(failed).toMatchObject({ status: 404, model: null, requested_model: "no-such-model", error_code: "model_not_found", cost_usd: 0 })

    const errors = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests?outcome=error`))
    expect(errors.data.map((r) => r.request_id)).toEqual([refusedId])
    const byCode = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests?code=model_not_found`))
    expect(byCode.data.map((r) => r.request_id)).toEqual([refusedId])
    const byModel = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests?model=gpt-test&key_id=${keyId}`))
    expect(byModel.data.map((r) => r.request_id)).toEqual([okId])
    const first = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests?limit=1`))
    expect(first).toMatchObject({ has_more: true, data: [{ request_id: refusedId }] })
    const next = expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests?limit=1&before=${first.data[0]!.cursor}`))
    expect(next).toMatchObject({ has_more: false, data: [{ request_id: okId }] })
    expectEnvelope(await call("GET", `/admin/projects/${projectId}/requests?before=yesterday`), 400, "invalid_request_error", "before")

    const record = expectBody(RequestLogEntry, await call("GET", `/admin/projects/${projectId}/requests/${okId}`))
    expect(record).toEqual(served)
    expectEnvelope(await call("GET", `/admin/projects/${projectId}/requests/req_unknown`), 404, "not_found_error", "request_id")
  })

  it("gives an overview from the usage ledger, and says since when billing counts spend", async () => {
    const { projectId, keyId, secret } = await setUp()
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } }) })
    expect((await chat(secret)).status).toBe(200)
    expect((await chat(secret, "no-such-model")).status).toBe(404)
    await flush()
    const before = expectBody(ProjectOverview, await call("GET", `/admin/projects/${projectId}/overview`))
    expect(before.today).toEqual({ requests: 2, errors: 1, prompt_tokens: 11, completion_tokens: 7, cost_usd: 0.000025, cost_nano_usd: "25000" })
    expect(before.month.requests).toBe(2)
    expect(before.top_models).toEqual([
      { model: "gpt-test", requests: 1, errors: 0, prompt_tokens: 11, completion_tokens: 7, cost_usd: 0.000025, cost_nano_usd: "25000" },
      { model: null, requests: 1, errors: 1, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, cost_nano_usd: "0" }
    ])
    // Not billed yet: no counters, so "spend" as billing sees it is zero while the ledger shows the cost.
    expect(before.billing).toEqual({ balance_usd: null, reserved_usd: 0, billed: false, counting_since: null, day_usd: 0, month_usd: 0 })
    expect(before.day_start % 86_400).toBe(0)

    const granted = expectBody(BillingStatusView, await call("POST", `/admin/projects/${projectId}/credits`, { body: { amount_usd: 5, granted_by: "ada@example.com", note: "trial" } }))
    expect(granted.balance_usd).toBe(5)
    const after = expectBody(ProjectOverview, await call("GET", `/admin/projects/${projectId}/overview`))
    expect(after.billing.billed).toBe(true)
    expect(after.billing.counting_since).toBeGreaterThanOrEqual(before.day_start)
    const ledger = expectBody(CreditLedgerView, await call("GET", `/admin/projects/${projectId}/credits`))
    expect(ledger.data[0]).toMatchObject({ kind: "grant", amount_usd: 5, granted_by: "ada@example.com", note: "trial" })

    const perKey = expectBody(KeyUsageList, await call("GET", `/admin/projects/${projectId}/usage/keys`))
    expect(perKey.data).toEqual([{ key_id: keyId, name: "ci", requests: 2, errors: 1, prompt_tokens: 11, completion_tokens: 7, cost_usd: 0.000025, cost_nano_usd: "25000", last_used_at: expect.any(Number) }])
  })

  it("sets rpm alone and tpm alone; an omitted field is kept, null removes it", async () => {
    const { projectId } = await setUp()
    const rate = async (body: Record<string, unknown>) => expectBody(BillingStatusView, await call("POST", `/admin/projects/${projectId}/rate-limits`, { body })).rate_limits
    expect(await rate({ rpm: 2 })).toEqual([{ key_id: null, model: null, rpm: 2, tpm: null }])
    expect(await rate({ tpm: 500 })).toEqual([{ key_id: null, model: null, rpm: 2, tpm: 500 }])
    expect(await rate({ rpm: null })).toEqual([{ key_id: null, model: null, rpm: null, tpm: 500 }])
    expect(await rate({ tpm: null })).toEqual([])
    const neither = expectEnvelope(await call("POST", `/admin/projects/${projectId}/rate-limits`, { body: { model: "gpt-test" } }), 400, "invalid_request_error", "rpm")
    expect(neither.message).toContain("'rpm', 'tpm' or both")
  })

  it("changes a key's scopes and rotates its secret: the old secret is refused at once", async () => {
    const { projectId, keyId, secret } = await setUp()
    const embed = (s: string) => gw.postJson("/v1/embeddings", { model: "gpt-test", input: "x" }, s)
    expect((await embed(secret)).status).toBe(403)
    const changed = expectBody(ApiKeyView, await call("POST", `/admin/keys/${keyId}/scopes`, { body: { scopes: ["chat", "embeddings", "chat"] } }))
    expect(changed.scopes).toEqual(["chat", "embeddings"])
    expect((await embed(secret)).status).not.toBe(403)
    expectEnvelope(await call("POST", `/admin/keys/${keyId}/scopes`, { body: { scopes: [] } }), 400, "invalid_request_error", "scopes")

    const rotated = expectBody(RotatedKey, await call("POST", `/admin/keys/${keyId}/rotate`))
    expect(rotated.key).toMatchObject({ id: keyId, scopes: ["chat", "embeddings"], hint: rotated.secret.slice(-4) })
    expect(rotated.secret).not.toBe(secret)
    expect((await chat(secret)).status).toBe(401)
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    expect((await chat(rotated.secret)).status).toBe(200)

    expect((await call("POST", `/admin/keys/${keyId}/revoke`)).status).toBe(200)
    const revoked = expectEnvelope(await call("POST", `/admin/keys/${keyId}/rotate`), 400, "invalid_request_error", "key_id")
    expect(revoked.message).toContain("revoked")
    expectEnvelope(await call("POST", "/admin/keys/key_nope/rotate"), 404, "not_found_error", "key_id")
    expect(projectId).not.toBe("")
  })

  it("deletes a user (its keys revoked) and a project (gone from the listing, its keys refused)", async () => {
    const { projectId, secret } = await setUp()
    const user = expectBody(UserView, await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "Bob" } }))
    const bobs = expectBody(CreatedKey, await call("POST", `/admin/projects/${projectId}/keys`, { body: { user_id: user.id } }))
    expect(expectBody(Deleted, await call("DELETE", `/admin/users/${user.id}`))).toEqual({ id: user.id, object: "user", deleted: true, revoked_keys: 1 })
    expect(expectBody(listOf(UserView), await call("GET", `/admin/projects/${projectId}/users`)).data).toEqual([])
    expect((await chat(bobs.secret)).status).toBe(401)
    expectEnvelope(await call("DELETE", `/admin/users/${user.id}`), 404, "not_found_error", "user_id")

    expect(expectBody(Deleted, await call("DELETE", `/admin/projects/${projectId}`))).toEqual({ id: projectId, object: "project", deleted: true, revoked_keys: 1 })
    const projects = expectBody(listOf(ProjectView), await call("GET", "/admin/projects"))
    expect(projects.data.map((p) => p.id)).not.toContain(projectId)
    expect((await chat(secret)).status).toBe(401)
    expectEnvelope(await call("GET", `/admin/projects/${projectId}`), 404, "not_found_error", "project_id")
    expectEnvelope(await call("POST", `/admin/projects/${projectId}/keys`, { body: {} }), 404, "not_found_error", "project_id")
  })
})
