import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import type { RecordedRequest, Reply } from "../support/FakeUpstream.ts"
import { openAiEmbeddings } from "../support/EmbeddingFixtures.ts"
import { AdminCall, AnyChat, AnyEmbedding, arbitrary, FilesQuery, MaybeMutation, type Mutation, mutate, Upload, UrlText } from "../support/FuzzInputs.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * Generated requests against every endpoint, valid ones and hostile ones: none may get a 5xx
 * from the gateway itself, every error must be the spec's envelope, every stream must end with
 * [DONE], and the usage ledger must still write afterwards. `FUZZ_RUNS` requests per endpoint
 * (200 in `npm test`; `npm run test:fuzz` sends 10,000). A failure is shrunk to a small request.
 */
const runs = Number(process.env["FUZZ_RUNS"] ?? 200)
const options = { timeout: Math.max(60_000, runs * 40), arbitrary: { runs, concurrency: 8 } }
const tally = new Map<string, { sent: number; serverErrors: number; statuses: Map<number, number> }>()

const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({ message: Schema.String, type: Schema.String, param: Schema.NullOr(Schema.String), code: Schema.NullOr(Schema.String) })
})
const isEnvelope = Schema.is(ErrorEnvelope)

/** Sends one request and judges its answer; a typed failure (not a defect) so that it shrinks. */
const exchange = (endpoint: string, url: string, init: RequestInit) =>
  Effect.flatMap(
    Effect.promise(async () => {
      const res = await fetch(url, init)
      return { res, text: await res.text() }
    }),
    ({ res, text }) => {
      const count = tally.get(endpoint) ?? { sent: 0, serverErrors: 0, statuses: new Map() }
      tally.set(endpoint, count)
      count.sent++
      count.statuses.set(res.status, (count.statuses.get(res.status) ?? 0) + 1)
      const problem = (() => {
        if (res.status >= 500) return "a 5xx from the gateway"
        if (res.status >= 400) {
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            return "an error body that is not JSON"
          }
          return isEnvelope(body) ? undefined : "an error body outside the error shape"
        }
        if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream") && !parseSse(text).done) return "a stream without [DONE]"
        return undefined
      })()
      if (problem === undefined) return Effect.succeed(true)
      if (res.status >= 500) count.serverErrors++
      return Effect.fail(new Error(`${problem}: ${init.method ?? "GET"} ${url} -> ${res.status} ${text.slice(0, 300)}`))
    }
  )

/** A path segment as a client might send it: raw, but it stays one segment. */
const segment = (text: string) => text.replace(/[/?#]/g, encodeURIComponent)

const upstreamAnswer = (request: RecordedRequest): Reply => {
  if (request.url.endsWith("/embeddings")) return openAiEmbeddings()(request)
  const streamed = typeof request.body === "object" && request.body !== null && (request.body as { stream?: unknown }).stream === true
  return streamed ? { kind: "sse", frames: openAiTextFrames(["fuzzed"]) } : { kind: "json", status: 200, body: openAiCompletion() }
}

describe("fuzz: generated and hostile requests on every endpoint", () => {
  const admin = "fuzz-admin-token-0123456789abcdef"
  const gw = useGateway({
    adminToken: admin,
    config: ({ upstream }) => ({
      files: { max_upload_mb: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-fuzz-upstream" }],
      models: [
        { id: "gpt-test", kind: "chat", capabilities: { vision: true, audio_input: true, file_input: true, tools: true, structured_output: true, logprobs: true }, deployments: [{ provider: "openai", model: "gpt-4o-mini" }] },
        { id: "embed-test", kind: "embedding", capabilities: { dimensions: 4, matryoshka: true }, deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    }),
    key: { withUser: true }
  })
  const answer = () => gw.upstream.always(upstreamAnswer)
  const json = (path: string, body: Record<string, unknown>, mutation: Mutation, headers: Record<string, string>) => {
    const { text, contentType } = mutate(body, mutation)
    return { method: "POST", headers: { ...headers, "content-type": contentType }, body: text }
  }

  afterAll(() => {
    for (const [endpoint, { sent, serverErrors, statuses }] of tally) {
      const spread = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(", ")
      console.log(`fuzz ${endpoint}: ${sent} requests sent, 5xx = ${serverErrors} (${spread})`)
    }
  })

  it.effect.prop("chat completions", [arbitrary(AnyChat), arbitrary(MaybeMutation)], ([body, mutation]) =>
    Effect.andThen(Effect.sync(answer), exchange("chat", `${gw.url}/v1/chat/completions`, json("/v1/chat/completions", body, mutation, gw.auth()))), options)

  it.effect.prop("embeddings", [arbitrary(AnyEmbedding), arbitrary(MaybeMutation)], ([body, mutation]) =>
    Effect.andThen(Effect.sync(answer), exchange("embeddings", `${gw.url}/v1/embeddings`, json("/v1/embeddings", body, mutation, gw.auth()))), options)

  it.effect.prop("file uploads", [arbitrary(Upload)], ([upload]) => {
    const form = new FormData()
    if (upload.purpose !== undefined) form.append("purpose", upload.purpose)
    if (upload.anchor !== undefined) form.append("expires_after[anchor]", upload.anchor)
    if (upload.seconds !== undefined) form.append("expires_after[seconds]", upload.seconds)
    for (let i = 0; i < upload.files; i++) form.append(upload.field, new Blob([Uint8Array.from(upload.bytes)]), upload.filename)
    return exchange("files upload", `${gw.url}/v1/files`, { method: "POST", headers: gw.auth(), body: form })
  }, options)

  it.effect.prop("file reads and deletes", [arbitrary(FilesQuery), arbitrary(UrlText), arbitrary(Schema.Literals(["list", "get", "content", "delete"]))], ([query, id, kind]) => {
    const search = Object.entries(query).map(([k, v]) => `${k}=${v}`).join("&")
    const url = kind === "list" ? `${gw.url}/v1/files?${search}` : `${gw.url}/v1/files/${segment(id)}${kind === "content" ? "/content" : ""}`
    return exchange("files read/delete", url, { method: kind === "delete" ? "DELETE" : "GET", headers: gw.auth() })
  }, options)

  it.effect.prop("models", [arbitrary(UrlText)], ([id]) => exchange("models", `${gw.url}/v1/models/${segment(id)}`, { headers: gw.auth() }), options)

  it.effect.prop("admin API", [arbitrary(AdminCall), arbitrary(MaybeMutation)], ([call, mutation]) => {
    const headers = { authorization: `Bearer ${admin}` }
    const project = "project" in call ? (call.project === "known" ? gw.key.projectId : "proj_unknown") : ""
    switch (call.op) {
      case "createProject":
        return exchange("admin", `${gw.url}/admin/projects`, json("", call.body, mutation, headers))
      case "createUser":
        return exchange("admin", `${gw.url}/admin/projects/${project}/users`, json("", call.body, mutation, headers))
      case "createKey":
        return exchange("admin", `${gw.url}/admin/projects/${project}/keys`, json("", call.body, mutation, headers))
      case "usage":
        return exchange("admin", `${gw.url}/admin/projects/${project}/usage?from=${call.from ?? ""}&to=${call.to ?? ""}`, { headers })
      case "get":
        return exchange("admin", `${gw.url}/admin/${call.path.replace("{id}", segment(call.id))}`, { headers })
      case "revoke":
        return exchange("admin", `${gw.url}/admin/keys/${segment(call.id)}${call.method === "POST" ? "/revoke" : ""}`, { method: call.method, headers })
    }
  }, options)

  it("the usage ledger still writes afterwards", async () => {
    answer()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "after the fuzz" }] })
    expect(res.status).toBe(200)
    const id = res.headers.get("x-request-id")!
    const found = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const ledger = yield* UsageLedger
        yield* ledger.flush
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM usage_events WHERE request_id = ${id}`
        return { rows: rows[0]!.n, pending: yield* ledger.pending }
      })
    )
    expect(found).toEqual({ rows: 1, pending: 0 })
    expect([...tally.values()].reduce((n, t) => n + t.serverErrors, 0)).toBe(0)
  })
})
