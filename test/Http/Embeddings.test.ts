import { beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type OpenAI from "openai"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { float32Base64, geminiEmbeddings, openAiEmbeddings, vectorFor } from "../support/EmbeddingFixtures.ts"
import type { FakeUpstream } from "../support/FakeUpstream.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { validateAgainst } from "../support/OpenApiValidator.ts"
import { useGateway } from "../support/UseGateway.ts"

const fround = (values: ReadonlyArray<number>) => values.map(Math.fround)

describe("POST /v1/embeddings", () => {
  const gw = useGateway({
    upstreams: ["openai", "compat", "gemini"],
    config: ({ openai, compat, gemini }) => ({
      routing: { base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 100 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "compat", kind: "openai-compatible", profile: "vllm", base_url: `${compat.url}/v1`, api_key: "k2" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" }
      ],
      models: [
        {
          id: "emb-small",
          kind: "embedding",
          deployments: [{ provider: "openai", model: "text-embedding-3-small" }],
          capabilities: { dimensions: 4, matryoshka: true, context_length: 16 },
          pricing: { input_per_mtok: 2 }
        },
        { id: "emb-fixed", kind: "embedding", deployments: [{ provider: "openai", model: "ada" }], capabilities: { dimensions: 4 } },
        { id: "emb-compat", kind: "embedding", deployments: [{ provider: "compat", model: "nomic-embed" }] },
        {
          id: "emb-pair",
          kind: "embedding",
          deployments: [{ provider: "openai", model: "te3" }, { provider: "compat", model: "te3" }]
        },
        {
          id: "gemini-emb",
          kind: "embedding",
          deployments: [{ provider: "gemini", model: "gemini-embedding-001" }],
          capabilities: { dimensions: 8, matryoshka: true },
          pricing: { input_per_mtok: 1 }
        },
        { id: "gpt-chat", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }
      ]
    })
  })
  const { openai, compat, gemini } = gw.upstreams
  let client: OpenAI
  const post = (body: unknown, secret = gw.key.secret, headers: Record<string, string> = {}) =>
    gw.postJson("/v1/embeddings", body, { key: secret, headers })
  const sent = (upstream: FakeUpstream, i = 0) => upstream.requests[i]!.body as Record<string, any>

  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })
  beforeEach(() => {
    openai.always(openAiEmbeddings())
    compat.always(openAiEmbeddings())
    gemini.always(geminiEmbeddings)
  })

  it("answers the list object of spec 2.7, valid against CreateEmbeddingResponse", async () => {
    const res = await post({ model: "emb-small", input: ["hello", "world!"] })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-provider")).toBe("openai")
    expect(res.headers.get("x-gateway-attempts")).toBe("1")
    const body = (await res.json()) as any
    expect(body).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: vectorFor("hello") },
        { object: "embedding", index: 1, embedding: vectorFor("world!") }
      ],
      model: "emb-small",
      usage: { prompt_tokens: 2, total_tokens: 2 }
    })
    expect(validateAgainst("CreateEmbeddingResponse", body)).toEqual([])
    expect(openai.requests[0]!.url).toBe("/v1/embeddings")
    expect(openai.requests[0]!.headers.authorization).toBe("Bearer sk-up")
    expect(sent(openai)).toEqual({ model: "text-embedding-3-small", input: ["hello", "world!"], encoding_format: "float" })
  })

  it("passes dimensions, user (or safety_identifier), token input and unknown fields upstream", async () => {
    const res = await post({ model: "emb-small", input: [[1, 2], [3]], dimensions: 2, safety_identifier: "u-1", input_type: "query" })
    expect(res.status).toBe(200)
    expect(sent(openai)).toEqual({
      model: "text-embedding-3-small",
      input: [[1, 2], [3]],
      encoding_format: "float",
      dimensions: 2,
      user: "u-1",
      input_type: "query"
    })
    expect(((await res.json()) as any).data[1].embedding).toEqual(vectorFor([3], 2))
  })

  it("base64 from the upstream reaches the client byte for byte", async () => {
    const res = await post({ model: "emb-small", input: "hi", encoding_format: "base64" })
    expect(sent(openai).encoding_format).toBe("base64")
    expect(((await res.json()) as any).data[0].embedding).toBe(float32Base64(vectorFor("hi")))
  })

  it("openai SDK: the default asks base64 and decodes it; float is passed through exactly", async () => {
    const decoded = await client.embeddings.create({ model: "emb-small", input: ["alpha", "be"] })
    expect(sent(openai).encoding_format).toBe("base64")
    expect(decoded.data.map((d) => d.embedding)).toEqual([fround(vectorFor("alpha")), fround(vectorFor("be"))])
    const floats = await client.embeddings.create({ model: "emb-small", input: "alpha", encoding_format: "float" })
    expect(sent(openai, 1).encoding_format).toBe("float")
    expect(floats.data[0]!.embedding).toEqual(vectorFor("alpha"))
    expect(validateAgainst("CreateEmbeddingResponse", floats)).toEqual([])
  })

  it("converts when an upstream ignores encoding_format, and estimates missing usage", async () => {
    compat.always(openAiEmbeddings({ alwaysFloat: true, noUsage: true }))
    const decoded = await client.embeddings.create({ model: "emb-compat", input: ["abcdefgh", "x"] })
    expect(decoded.data.map((d) => d.embedding)).toEqual([fround(vectorFor("abcdefgh")), fround(vectorFor("x"))])
    expect(decoded.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 })
    compat.always(openAiEmbeddings({ alwaysBase64: true }))
    const floats = (await (await post({ model: "emb-compat", input: "abc" })).json()) as any
    expect(floats.data[0].embedding).toEqual(fround(vectorFor("abc")))
  })

  it("Gemini: batchEmbedContents in batches of 100, floats converted for the SDK, tokens estimated", async () => {
    const inputs = Array.from({ length: 150 }, (_, i) => `text number ${i}`)
    const res = await client.embeddings.create({ model: "gemini-emb", input: inputs, dimensions: 3 }).withResponse()
    expect(res.data.model).toBe("gemini-emb")
    expect(res.data.data.map((d) => d.index)).toEqual(inputs.map((_, i) => i))
    expect(res.data.data.map((d) => d.embedding)).toEqual(inputs.map((text) => fround(vectorFor(text, 3))))
    expect(res.data.usage.prompt_tokens).toBe(inputs.reduce((n, t) => n + Math.ceil(t.length / 4), 0))
    expect(gemini.requests.map((r) => r.url).sort()).toEqual([
      "/v1beta/models/gemini-embedding-001:batchEmbedContents",
      "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    ])
    expect(gemini.requests[0]!.headers["x-goog-api-key"]).toBe("g-key")
    const sizes = gemini.requests.map((r) => (r.body as any).requests.length).sort((a: number, b: number) => a - b)
    expect(sizes).toEqual([50, 100])
    const first = gemini.requests.find((r) => (r.body as any).requests.length === 100)!.body as any
    expect(first.requests[0]).toEqual({ model: "models/gemini-embedding-001", content: { parts: [{ text: "text number 0" }] }, outputDimensionality: 3 })
  })

  it("Gemini: token-id input is 400 naming input, before any upstream call", async () => {
    const res = await post({ model: "gemini-emb", input: [[1, 2, 3]] })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error).toMatchObject({ type: "invalid_request_error", param: "input", code: "unsupported_input" })
    expect(gemini.requests).toHaveLength(0)
  })

  it.each([
    ["an empty string", { model: "emb-small", input: "" }, "input"],
    ["an empty string in a batch", { model: "emb-small", input: ["ok", ""] }, "input[1]"],
    ["2049 inputs", { model: "emb-small", input: Array.from({ length: 2049 }, () => "x") }, "input"],
    ["a negative token id", { model: "emb-small", input: [[1], [-1]] }, "input[1][0]"],
    ["a token array beyond the context", { model: "emb-small", input: Array.from({ length: 17 }, () => 1) }, "input"],
    ["dimensions 0", { model: "emb-small", input: "x", dimensions: 0 }, "dimensions"],
    ["dimensions above the model's size", { model: "emb-small", input: "x", dimensions: 8 }, "dimensions"],
    ["dimensions on a model that cannot shorten", { model: "emb-fixed", input: "x", dimensions: 2 }, "dimensions"],
    ["an unknown encoding_format", { model: "emb-small", input: "x", encoding_format: "binary" }, "encoding_format"],
    ["a chat model", { model: "gpt-chat", input: "x" }, "model"],
    ["no model", { input: "x" }, "model"]
  ])("400 invalid_request_error for %s names %s", async (_, body, param) => {
    const res = await post(body)
    expect(res.status).toBe(400)
    const error = ((await res.json()) as any).error
    expect(error.type).toBe("invalid_request_error")
    expect(error.param).toBe(param)
    expect(error.message).toContain(param)
    expect(openai.requests).toHaveLength(0)
  })

  it("404 model_not_found for an unknown model; 415 without a JSON content type", async () => {
    const missing = await post({ model: "nope", input: "x" })
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as any).error).toMatchObject({ type: "not_found_error", param: "model", code: "model_not_found" })
    const text = await post(JSON.stringify({ model: "emb-small", input: "x" }), gw.key.secret, { "content-type": "text/plain" })
    expect(text.status).toBe(415)
  })

  it("a key without the embeddings scope gets 403", async () => {
    const chatOnly = await gw.createKey({ scopes: ["chat"] })
    const res = await post({ model: "emb-small", input: "x" }, chatOnly.secret)
    expect(res.status).toBe(403)
    expect(((await res.json()) as any).error).toMatchObject({ type: "permission_error", code: "missing_scope" })
    const allowed = await gw.createKey({ scopes: ["embeddings"] })
    expect((await post({ model: "emb-small", input: "x" }, allowed.secret)).status).toBe(200)
  })

  it("an upstream 5xx falls back to the model's other deployment", async () => {
    let calls = 0
    const flaky = (request: Parameters<ReturnType<typeof openAiEmbeddings>>[0]) =>
      calls++ === 0 ? { kind: "json" as const, status: 503, body: { error: { message: "overloaded" } } } : openAiEmbeddings()(request)
    openai.always(flaky)
    compat.always(flaky)
    const res = await post({ model: "emb-pair", input: "again" })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-attempts")).toBe("2")
    expect(((await res.json()) as any).data[0].embedding).toEqual(vectorFor("again"))
    expect(openai.requests).toHaveLength(1)
    expect(compat.requests).toHaveLength(1)
  })

  it("records one usage event per request, priced per input token", async () => {
    const fresh = await gw.createKey()
    const res = await post({ model: "emb-small", input: "one two three four" }, fresh.secret)
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    await new Promise((r) => setTimeout(r, 50))
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT d.name AS endpoint, e.status, e.streamed, e.prompt_tokens, e.completion_tokens,
            e.cost_nano_usd, e.attempts, m.name AS used_model, p.name AS provider
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq JOIN usage_endpoints d ON d.id = e.endpoint
          LEFT JOIN usage_labels m ON m.id = e.used_model LEFT JOIN usage_labels p ON p.id = e.provider
          WHERE k.id = ${fresh.keyId}`
      })
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      endpoint: "embeddings",
      status: 200,
      streamed: false,
      prompt_tokens: 4,
      completion_tokens: 0,
      attempts: 1,
      used_model: "emb-small",
      provider: "openai"
    })
    // 4 input tokens at $2/M = 8 micro-dollars
    expect(Number(rows[0]!["cost_nano_usd"])).toBe(8_000)
  })
})
