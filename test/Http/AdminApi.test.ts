import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ApiKeyView, ProjectView, UserView } from "../../src/Domain/ApiKey.ts"
import type { UsageEvent } from "../../src/Domain/UsageEvent.ts"
import { CreatedKey, UsageReportBody } from "../../src/Http/Admin/AdminSchemas.ts"
import { ApiKeys } from "../../src/Services/Accounts/ApiKeys.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { adminCall, expectBody, expectEnvelope, listOf, type Reply } from "../support/AdminClient.ts"
import { makeTestStorage } from "../support/TestDatabase.ts"
import { startGateway } from "../support/TestGateway.ts"
import { usageEvent } from "../support/UsageEvents.ts"
import { useGateway } from "../support/UseGateway.ts"
import { billingAdminOperations } from "./BillingSupport.ts"

const token = "admin-test-token-0123456789abcdef"

describe("admin API", () => {
  const gw = useGateway({ adminToken: token, key: false })
  const call = adminCall(() => gw.url, token)
  const models = async (secret: string): Promise<Reply> => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: gw.auth(secret) })
    return { status: res.status, body: (await res.json()) as unknown }
  }
  const newProject = async (name = "acme") => expectBody(ProjectView, await call("POST", "/admin/projects", { body: { name } })).id
  const newKey = async (projectId: string, body: unknown = {}) =>
    expectBody(CreatedKey, await call("POST", `/admin/projects/${projectId}/keys`, { body }))

  describe("authentication", () => {
    it("refuses a missing token with the 401 envelope", async () => {
      const error = expectEnvelope(await call("GET", "/admin/projects", { auth: null }), 401, "authentication_error")
      expect(error.code).toBe("missing_admin_token")
    })

    it("refuses a wrong token, a non-bearer scheme and a project API key", async () => {
      for (const auth of [`Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`]) {
        expectEnvelope(await call("GET", "/admin/projects", { auth }), 401, "authentication_error")
      }
      const key = await gw.createKey()
      expectEnvelope(await call("GET", "/admin/projects", { auth: `Bearer ${key.secret}` }), 401, "authentication_error")
    })

    it("checks the token before reading the body", async () => {
      expectEnvelope(await call("POST", "/admin/projects", { auth: "Bearer nope", raw: "{not json" }), 401, "authentication_error")
    })

    it("serves nothing under /admin when no admin token is configured", async () => {
      // Embedded storage serves one process at a time, so this gateway gets its own.
      const offStorage = await makeTestStorage()
      const off = await startGateway({ storage: offStorage })
      try {
        const offCall = adminCall(() => off.url, token)
        for (const path of ["/admin/projects", "/admin/openapi.json"]) {
          expect(expectEnvelope(await offCall("GET", path), 404, "not_found_error").code).toBe("admin_api_disabled")
        }
      } finally {
        await off.stop()
        await offStorage.cleanup()
      }
    })

    it("answers unknown /admin paths with the gateway's 404", async () => {
      expect(expectEnvelope(await call("GET", "/admin/nothing/here"), 404, "not_found_error").code).toBe("unknown_url")
    })

    it("answers a wrong method on an admin path with 405 and Allow, like /v1", async () => {
      expectEnvelope(await call("DELETE", "/admin/projects"), 405, "invalid_request_error")
      const res = await fetch(`${gw.url}/admin/keys/key_x/revoke`, { method: "GET", headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(405)
      expect(res.headers.get("allow")).toBe("POST")
      const both = await fetch(`${gw.url}/admin/projects`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })
      expect(both.headers.get("allow")).toBe("GET, POST")
    })
  })

  describe("projects and users", () => {
    it("creates, lists and retrieves projects", async () => {
      const created = expectBody(ProjectView, await call("POST", "/admin/projects", { body: { name: "Research" } }))
      expect(created.name).toBe("Research")
      expect(created.id).toMatch(/^proj_/)
      expect(Math.abs(created.created_at - Date.now() / 1000)).toBeLessThan(60)

      expect(expectBody(listOf(ProjectView), await call("GET", "/admin/projects")).data).toContainEqual(created)
      expect(expectBody(ProjectView, await call("GET", `/admin/projects/${created.id}`))).toEqual(created)
      expectEnvelope(await call("GET", "/admin/projects/proj_missing"), 404, "not_found_error", "project_id")
    })

    it("creates and lists users of a project", async () => {
      const projectId = await newProject()
      const alice = expectBody(UserView, await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "Alice", email: "alice@example.com" } }))
      expect(alice).toMatchObject({ project_id: projectId, name: "Alice", email: "alice@example.com" })
      const bob = expectBody(UserView, await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "Bob" } }))
      expect(bob.email).toBeNull()

      expect(expectBody(listOf(UserView), await call("GET", `/admin/projects/${projectId}/users`)).data).toEqual([alice, bob])
      expectEnvelope(await call("POST", "/admin/projects/proj_missing/users", { body: { name: "x" } }), 404, "not_found_error", "project_id")
      expectEnvelope(await call("GET", "/admin/projects/proj_missing/users"), 404, "not_found_error", "project_id")
    })
  })

  describe("request validation", () => {
    it("names the offending field", async () => {
      const projectId = await newProject()
      const invalid = (reply: Reply, param: string) => expectEnvelope(reply, 400, "invalid_request_error", param)
      invalid(await call("POST", "/admin/projects", { body: {} }), "name")
      invalid(await call("POST", "/admin/projects", { body: { name: 7 } }), "name")
      invalid(await call("POST", "/admin/projects", { body: { name: "" } }), "name")
      invalid(await call("POST", "/admin/projects", { body: { name: "x", colour: "red" } }), "colour")
      invalid(await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "x", email: 5 } }), "email")

      const keys = `/admin/projects/${projectId}/keys`
      expect(invalid(await call("POST", keys, { body: { scopes: ["models", "everything"] } }), "scopes[1]").message).toContain("scopes[1]")
      invalid(await call("POST", keys, { body: { scopes: [] } }), "scopes")
      invalid(await call("POST", keys, { body: { expires_at: "soon" } }), "expires_at")
      invalid(await call("GET", `/admin/projects/${projectId}/usage?from=yesterday`), "from")
      invalid(await call("GET", `/admin/projects/${projectId}/usage?from=200&to=100`), "from")
    })

    it("rejects bodies that are not JSON objects", async () => {
      expectEnvelope(await call("POST", "/admin/projects", { raw: "{not json" }), 400, "invalid_request_error")
      expectEnvelope(await call("POST", "/admin/projects", { raw: "[1,2]" }), 400, "invalid_request_error")
      expectEnvelope(await call("POST", "/admin/projects", { raw: "" }), 400, "invalid_request_error")
      const form = { raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }
      expectEnvelope(await call("POST", "/admin/projects", form), 415, "invalid_request_error")
      expectEnvelope(await call("POST", "/admin/projects", { body: { name: "x".repeat(70_000) } }), 413, "invalid_request_error")
    })
  })

  describe("keys", () => {
    it("creates a key whose secret is shown once and works on /v1/models until revoked", async () => {
      const projectId = await newProject()
      const { key, secret } = await newKey(projectId, { name: "ci", scopes: ["models", "chat"] })
      expect(secret).toMatch(/^sk-/)
      expect(key).toMatchObject({ name: "ci", project_id: projectId, user_id: null, scopes: ["models", "chat"], revoked_at: null })
      expect(key.hint).toBe(secret.slice(-4))

      // Exact decoding: any field beyond the view (a secret, a hash) fails here.
      const listed = await call("GET", `/admin/projects/${projectId}/keys`)
      expect(expectBody(listOf(ApiKeyView), listed).data).toEqual([key])
      expect(JSON.stringify(listed.body)).not.toContain(secret)

      expect((await models(secret)).status).toBe(200)
      const revoked = expectBody(ApiKeyView, await call("POST", `/admin/keys/${key.id}/revoke`))
      expect(revoked.id).toBe(key.id)
      expect(revoked.revoked_at).not.toBeNull()
      // Revoking again keeps the first revocation time.
      expect(expectBody(ApiKeyView, await call("POST", `/admin/keys/${key.id}/revoke`)).revoked_at).toBe(revoked.revoked_at)

      const refused = expectEnvelope(await models(secret), 401, "authentication_error")
      expect(refused.code).toBe("api_key_revoked")
    })

    it("revokes with DELETE too", async () => {
      const { key, secret } = await newKey(await newProject())
      expect(key.scopes.length).toBeGreaterThan(1)
      expect((await models(secret)).status).toBe(200)
      expect(expectBody(ApiKeyView, await call("DELETE", `/admin/keys/${key.id}`)).revoked_at).not.toBeNull()
      expectEnvelope(await models(secret), 401, "authentication_error")
      expectEnvelope(await call("DELETE", "/admin/keys/key_missing"), 404, "not_found_error", "key_id")
      expectEnvelope(await call("POST", "/admin/keys/key_missing/revoke"), 404, "not_found_error", "key_id")
    })

    it("enforces scopes, users and expiry", async () => {
      const projectId = await newProject()
      const chatOnly = await newKey(projectId, { scopes: ["chat"] })
      expectEnvelope(await models(chatOnly.secret), 403, "permission_error")

      const user = expectBody(UserView, await call("POST", `/admin/projects/${projectId}/users`, { body: { name: "Carol" } }))
      const expiresAt = Math.floor(Date.now() / 1000) + 3600
      const forUser = await newKey(projectId, { user_id: user.id, expires_at: expiresAt })
      expect(forUser.key).toMatchObject({ user_id: user.id, expires_at: expiresAt })

      const elsewhere = await newProject("elsewhere")
      const create = (id: string, body: unknown) => call("POST", `/admin/projects/${id}/keys`, { body })
      expectEnvelope(await create(elsewhere, { user_id: user.id }), 400, "invalid_request_error", "user_id")
      expectEnvelope(await create(projectId, { user_id: "user_missing" }), 404, "not_found_error", "user_id")
      expectEnvelope(await create(projectId, { expires_at: 1_000_000 }), 400, "invalid_request_error", "expires_at")
      expectEnvelope(await create("proj_missing", {}), 404, "not_found_error", "project_id")
      expectEnvelope(await call("GET", "/admin/projects/proj_missing/keys"), 404, "not_found_error", "project_id")
    })
  })

  describe("usage", () => {
    const event = (principal: { projectSeq: number; keySeq: number }, over: Partial<UsageEvent>): UsageEvent =>
      usageEvent({
        occurredAt: Date.now(),
        requestId: `req_${Math.random().toString(36).slice(2)}`,
        projectSeq: principal.projectSeq,
        keySeq: principal.keySeq,
        requestedModel: "alpha",
        usedModel: "alpha",
        provider: "test",
        attempts: [],
        costNanoUsd: 1_000_000,
        ...over
      })

    it("reports what the ledger recorded for the project and window", async () => {
      const projectId = await newProject("metered")
      const { secret } = await newKey(projectId)
      const other = await gw.createKey()
      const now = Date.now()
      const fortyDaysAgo = now - 40 * 86_400_000
      await gw.runtime.runPromise(
        Effect.gen(function* () {
          const keys = yield* ApiKeys
          const ledger = yield* UsageLedger
          const mine = yield* keys.verify(secret)
          yield* ledger.record(event(mine, { promptTokens: 100, completionTokens: 20, costNanoUsd: 1_500_000_000 }))
          yield* ledger.record(event(mine, { usedModel: "beta", requestedModel: "beta", promptTokens: 7, completionTokens: 3 }))
          yield* ledger.record(event(mine, { occurredAt: fortyDaysAgo, promptTokens: 1000 }))
          yield* ledger.record(event(yield* keys.verify(other.secret), { promptTokens: 5000 }))
          yield* ledger.flush
        })
      )

      const report = expectBody(UsageReportBody, await call("GET", `/admin/projects/${projectId}/usage`))
      expect(report.project_id).toBe(projectId)
      expect(report.to - report.from).toBe(30 * 86_400)
      expect(Math.abs(report.to - now / 1000)).toBeLessThan(60)
      const { cost_usd, ...counts } = report.totals
      expect(counts).toEqual({
        requests: 2,
        prompt_tokens: 107,
        completion_tokens: 23,
        cached_tokens: 0,
        cache_write_tokens: 0,
        units: 0,
        cost_nano_usd: "1501000000"
      })
      // Formatted from the integer sum: exactly 1.501, not a float sum's neighbour.
      expect(cost_usd).toBe(1.501)
      expect(report.by_model.map((m) => [m.model, m.requests, m.prompt_tokens])).toEqual([
        ["alpha", 1, 100],
        ["beta", 1, 7]
      ])

      const from = Math.floor(fortyDaysAgo / 1000) - 60
      const to = Math.floor(now / 1000) + 60
      const wide = expectBody(UsageReportBody, await call("GET", `/admin/projects/${projectId}/usage?from=${from}&to=${to}`))
      expect(wide).toMatchObject({ from, to, totals: { requests: 3, prompt_tokens: 1107 } })

      const empty = expectBody(UsageReportBody, await call("GET", `/admin/projects/${projectId}/usage?from=1000&to=2000`))
      expect(empty).toMatchObject({ from: 1000, to: 2000, totals: { requests: 0 }, by_model: [] })

      expectEnvelope(await call("GET", "/admin/projects/proj_missing/usage"), 404, "not_found_error", "project_id")
    })
  })

  describe("OpenAPI document", () => {
    const Operation = Schema.Struct({
      responses: Schema.Record(Schema.String, Schema.Unknown),
      requestBody: Schema.optionalKey(Schema.Struct({ content: Schema.Record(Schema.String, Schema.Unknown) }))
    })
    const Document = Schema.Struct({
      openapi: Schema.String,
      paths: Schema.Record(Schema.String, Schema.Record(Schema.String, Operation)),
      components: Schema.Struct({ securitySchemes: Schema.Record(Schema.String, Schema.Struct({ type: Schema.String, scheme: Schema.String })) })
    })

    it("is served as OpenAPI 3.1 JSON listing every admin path", async () => {
      expectEnvelope(await call("GET", "/admin/openapi.json", { auth: null }), 401, "authentication_error")
      const res = await fetch(`${gw.url}/admin/openapi.json`, { headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toContain("application/json")
      const doc = Schema.decodeUnknownSync(Document)(JSON.parse(await res.text()))
      expect(doc.openapi).toBe("3.1.0")
      const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      expect(operations.sort()).toEqual(
        [
          "DELETE /admin/keys/{key_id}",
          // The console's endpoints (test/Http/Admin/ConsoleEndpoints.test.ts).
          ...["DELETE /admin/projects/{project_id}/files/{file_id}", "GET /admin/models", "GET /admin/projects/{project_id}/files", "GET /admin/projects/{project_id}/usage/daily"],
          "GET /admin/projects",
          "GET /admin/projects/{project_id}",
          "GET /admin/projects/{project_id}/keys",
          "GET /admin/projects/{project_id}/usage",
          ...billingAdminOperations,
          "GET /admin/projects/{project_id}/users",
          "POST /admin/keys/{key_id}/revoke",
          // Strict translation (test/Http/StrictTranslationAdmin.test.ts).
          "POST /admin/keys/{key_id}/strict-translation",
          "POST /admin/projects/{project_id}/strict-translation",
          "POST /admin/projects",
          "POST /admin/projects/{project_id}/keys",
          "POST /admin/projects/{project_id}/users",
          // Overview, request log, key changes and deletions (test/Http/Admin/ConsoleOperations.test.ts).
          ...["GET /admin/projects/{project_id}/overview", "GET /admin/projects/{project_id}/usage/keys", "GET /admin/projects/{project_id}/requests"],
          ...["GET /admin/projects/{project_id}/requests/{request_id}", "POST /admin/keys/{key_id}/scopes", "POST /admin/keys/{key_id}/rotate"],
          ...["DELETE /admin/users/{user_id}", "DELETE /admin/projects/{project_id}"]
        ].sort()
      )
      expect(Object.values(doc.components.securitySchemes).map((s) => [s.type, s.scheme.toLowerCase()])).toEqual([["http", "bearer"]])
      const createKey = doc.paths["/admin/projects/{project_id}/keys"]?.["post"]
      expect(Object.keys(createKey?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "413", "415", "500"])
      expect(Object.keys(createKey?.requestBody?.content ?? {})).toEqual(["application/json"])
    })
  })
})
