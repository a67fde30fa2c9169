import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProjectView, UserView } from "../../../src/Domain/ApiKey.ts"
import type { UsageEvent } from "../../../src/Domain/UsageEvent.ts"
import { CreatedKey } from "../../../src/Http/Admin/AdminSchemas.ts"
import { AdminFileList, CatalogueList, DailyUsageBody, DeletedFile } from "../../../src/Http/Admin/ConsoleSchemas.ts"
import { ApiKeys } from "../../../src/Services/Accounts/ApiKeys.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { adminCall, expectBody, expectEnvelope } from "../../support/AdminClient.ts"
import { useGateway } from "../../support/UseGateway.ts"

const token = "admin-console-endpoints-0123456789abcdef"
const day = 86_400_000

describe("admin endpoints behind the console", () => {
  const gw = useGateway({
    adminToken: token,
    key: false,
    config: {
      providers: [{ id: "openai", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key: "sk-upstream-unused-001" }],
      models: [
        { id: "alpha", kind: "chat", capabilities: { tools: true, context_length: 128000 }, deployments: [{ provider: "openai", model: "gpt-4o" }], pricing: { input_per_mtok: 2.5, output_per_mtok: 10 } },
        { id: "vectors", kind: "embedding", capabilities: { dimensions: 8 }, deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    }
  })
  const call = adminCall(() => gw.url, token)
  const project = async () => expectBody(ProjectView, await call("POST", "/admin/projects", { body: { name: "console" } })).id

  it("sums usage per UTC day and serving model, cost exact", async () => {
    const projectId = await project()
    const { secret } = expectBody(CreatedKey, await call("POST", `/admin/projects/${projectId}/keys`, { body: {} }))
    const today = Date.UTC(2030, 0, 10, 12)
    const event = (seq: { projectSeq: number; keySeq: number }, over: Partial<UsageEvent>): UsageEvent => ({
      occurredAt: today, requestId: `req_${Math.random().toString(36).slice(2)}`, projectSeq: seq.projectSeq, keySeq: seq.keySeq,
      endpoint: "chat", requestedModel: "alpha", usedModel: "alpha", provider: "openai", status: 200, cancelled: false, streamed: false,
      promptTokens: 10, completionTokens: 5, cachedTokens: 0, cacheWriteTokens: 0, units: 0, latencyMs: 3, ttftMs: null, attempts: [],
      costNanoUsd: 100_000_001, ...over
    })
    await gw.runtime.runPromise(
      Effect.gen(function* () {
        const principal = yield* (yield* ApiKeys).verify(secret)
        const ledger = yield* UsageLedger
        yield* ledger.record(event(principal, {}))
        yield* ledger.record(event(principal, { occurredAt: today + 3_600_000 }))
        yield* ledger.record(event(principal, { occurredAt: today - day, usedModel: "vectors", requestedModel: "vectors", completionTokens: 0 }))
        // Outside the window asked for.
        yield* ledger.record(event(principal, { occurredAt: today - 5 * day }))
        yield* ledger.flush
      })
    )
    const from = (today - 2 * day) / 1000
    const to = (today + day) / 1000
    const body = expectBody(DailyUsageBody, await call("GET", `/admin/projects/${projectId}/usage/daily?from=${from}&to=${to}`))
    expect(body).toMatchObject({ object: "daily_usage", project_id: projectId, from, to })
    expect(body.data).toEqual([
      { day: "2030-01-09", model: "vectors", requests: 1, prompt_tokens: 10, completion_tokens: 0, cached_tokens: 0, units: 0, cost_usd: 0.100000001, cost_nano_usd: "100000001" },
      { day: "2030-01-10", model: "alpha", requests: 2, prompt_tokens: 20, completion_tokens: 10, cached_tokens: 0, units: 0, cost_usd: 0.200000002, cost_nano_usd: "200000002" }
    ])
    expectEnvelope(await call("GET", `/admin/projects/${projectId}/usage/daily?from=${to}&to=${from}`), 400, "invalid_request_error", "from")
    expectEnvelope(await call("GET", `/admin/projects/proj_nope/usage/daily`), 404, "not_found_error", "project_id")
  })

  it("lists a project's files newest first and deletes one; another project's file is not found", async () => {
    const projectId = await project()
    // The files endpoints need a key that acts for a user.
    const user = expectBody(UserView, await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "ada" } }))
    const { secret } = expectBody(CreatedKey, await call("POST", `/admin/projects/${projectId}/keys`, { body: { user_id: user.id } }))
    const upload = async (name: string) => {
      const form = new FormData()
      form.set("purpose", "user_data")
      form.set("file", new Blob([`contents of ${name}`], { type: "text/plain" }), name)
      const res = await fetch(`${gw.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: form })
      const body = (await res.json()) as { id: string }
      expect(res.status, JSON.stringify(body)).toBe(200)
      return body.id
    }
    const first = await upload("a.txt")
    const second = await upload("b.txt")
    const list = expectBody(AdminFileList, await call("GET", `/admin/projects/${projectId}/files`))
    expect(list.data.map((f) => f.id)).toEqual([second, first])
    expect(list.has_more).toBe(false)
    const page = expectBody(AdminFileList, await call("GET", `/admin/projects/${projectId}/files?limit=1`))
    expect(page).toMatchObject({ has_more: true, data: [{ id: second, filename: "b.txt", purpose: "user_data" }] })
    expectEnvelope(await call("GET", `/admin/projects/${projectId}/files?limit=0`), 400, "invalid_request_error", "limit")

    const elsewhere = await project()
    expectEnvelope(await call("DELETE", `/admin/projects/${elsewhere}/files/${first}`), 404, "not_found_error", "file_id")
    expect(expectBody(DeletedFile, await call("DELETE", `/admin/projects/${projectId}/files/${first}`))).toEqual({ id: first, object: "file", deleted: true })
    expect(expectBody(AdminFileList, await call("GET", `/admin/projects/${projectId}/files`)).data.map((f) => f.id)).toEqual([second])
    expectEnvelope(await call("DELETE", `/admin/projects/${projectId}/files/${first}`), 404, "not_found_error", "file_id")
  })

  it("shows the catalogue with kinds, capabilities and prices", async () => {
    const { data } = expectBody(CatalogueList, await call("GET", "/admin/models"))
    expect(data.map((m) => m.id)).toEqual(["alpha", "vectors"])
    expect(data[0]).toMatchObject({ kind: "chat", owned_by: "openai", context_length: 128000, pricing: { currency: "USD", input_per_mtok: 2.5, output_per_mtok: 10 } })
    expect(data[0]?.capabilities).toMatchObject({ tools: true, vision: false })
    expect(data[1]?.kind).toBe("embedding")
    expectEnvelope(await call("GET", "/admin/models", { auth: null }), 401, "authentication_error")
  })
})
