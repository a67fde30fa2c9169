import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Console, Effect, Layer, Logger, References } from "effect"
import { SqlClient } from "effect/sql"
import { requestJsonLogger } from "../../src/Http/RequestLogger.ts"
import { tracingLayer } from "../../src/Observability.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { anthropicErrorBody, anthropicFrames, messageStart } from "../support/AnthropicFixtures.ts"
import { sseFrame } from "../support/FakeUpstream.ts"
import { openAiChunk } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * No provider key reaches a client, a log line, a span or a usage row: each provider's real
 * error bodies, with the gateway's own key in them, go through the real server, and everything
 * the gateway wrote is scanned for the keys afterwards.
 */
const keys = {
  openai: "sk-proj-TESTfakeOpenAiKey0123456789abcdefXYZ",
  anthropic: "sk-ant-api03-TESTfakeAnthropicKey0123456789-abcdefAA",
  gemini: "AIzaSyTESTfakeGeminiKey0123456789abcdefg",
  // No known shape: only the registry of configured keys can catch this one.
  compat: "local-compat-secret-0123456789"
} as const

const exporter = new InMemorySpanExporter()
const logLines: Array<string> = []
const capturingConsole = { ...globalThis.console, log: (line: unknown) => void logLines.push(String(line)), error: (line: unknown) => void logLines.push(String(line)) }
const observability = Layer.mergeAll(
  Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))),
  Logger.layer([requestJsonLogger]),
  Layer.succeed(Console.Console, capturingConsole as Console.Console),
  Layer.succeed(References.MinimumLogLevel, "All")
) as Layer.Layer<never>

describe("no provider secret in any response, log line, span or usage row", () => {
  const gw = useGateway({
    upstreams: ["openai", "anthropic", "gemini", "compat"],
    observability,
    config: ({ openai, anthropic, gemini, compat }) => ({
      routing: { max_attempts: 1, attempts_per_model: 1, failure_threshold: 1000 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: keys.openai },
        { id: "anthropic", kind: "anthropic", base_url: `${anthropic.url}/v1`, api_key: keys.anthropic },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: keys.gemini },
        { id: "compat", kind: "openai-compatible", profile: "vllm", base_url: `${compat.url}/v1`, api_key: keys.compat }
      ],
      models: [
        { id: "gpt", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] },
        { id: "claude", kind: "chat", deployments: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] },
        { id: "gemini", kind: "chat", deployments: [{ provider: "gemini", model: "gemini-2.5-flash" }] },
        { id: "local", kind: "chat", deployments: [{ provider: "compat", model: "llama" }] },
        { id: "embed", kind: "embedding", deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    })
  })
  const { openai, anthropic, gemini, compat } = gw.upstreams
  const bodies: Array<string> = []
  const send = async (path: string, body: Record<string, unknown>) => {
    const res = await gw.postJson(path, body)
    const text = await res.text()
    bodies.push(text)
    return { status: res.status, text }
  }
  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    send("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }], ...extra })
  const expectClean = (text: string) => {
    for (const key of Object.values(keys)) expect(text).not.toContain(key)
  }

  it("OpenAI: the real 401 body, and its message echoed in a 400 and a 500", async () => {
    openai.reply({
      kind: "json",
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${keys.openai}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } }
    })
    const denied = await chat("gpt")
    expect(denied.status).toBe(502)
    expect(denied.text).toContain("rejected the gateway's credentials")
    openai.reply({ kind: "json", status: 400, body: { error: { message: `Invalid request sent with key ${keys.openai} (Bearer ${keys.openai})`, type: "invalid_request_error", param: keys.openai, code: null } } })
    const invalid = await chat("gpt")
    expect(invalid.status).toBe(400)
    expect(JSON.parse(invalid.text).error).toMatchObject({ message: "Invalid request sent with key [redacted] (Bearer [redacted])", param: "[redacted]" })
    openai.reply({ kind: "raw", status: 500, body: `upstream proxy failed for https://api.example/v1?key=${keys.openai}&x=1` })
    const failed = await chat("gpt")
    expect(failed.status).toBe(502)
    expect(failed.text).toContain("?key=[redacted]&x=1")
    for (const r of [denied, invalid, failed]) expectClean(r.text)
  })

  it("OpenAI: an error event inside a started stream, and an embeddings error", async () => {
    openai.reply({ kind: "sse", frames: [sseFrame(openAiChunk({ role: "assistant", content: "Hel" })), sseFrame({ error: { message: `quota for ${keys.openai} exhausted`, type: "server_error" } })] })
    const stream = await chat("gpt", { stream: true })
    expect(stream.status).toBe(200)
    expect(stream.text).toContain("quota for [redacted] exhausted")
    openai.reply({ kind: "json", status: 422, body: { error: { message: `bad input for ${keys.openai}`, type: "invalid_request_error" } } })
    const embedding = await send("/v1/embeddings", { model: "embed", input: "hello" })
    expect(embedding.status).toBe(400)
    expect(embedding.text).toContain("bad input for [redacted]")
    for (const r of [stream, embedding]) expectClean(r.text)
  })

  it("Anthropic: the real authentication_error body, a 400 echoing the key, and a mid-stream error", async () => {
    anthropic.reply({ kind: "json", status: 401, body: anthropicErrorBody("authentication_error", `invalid x-api-key ${keys.anthropic}`) })
    const denied = await chat("claude")
    expect(denied.status).toBe(502)
    anthropic.reply({ kind: "json", status: 400, body: anthropicErrorBody("invalid_request_error", `x-api-key ${keys.anthropic} cannot use this model`) })
    const invalid = await chat("claude")
    expect(invalid.status).toBe(400)
    expect(invalid.text).toContain("x-api-key [redacted] cannot use this model")
    anthropic.reply({
      kind: "sse",
      frames: anthropicFrames([
        messageStart(),
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } } },
        { event: "error", data: anthropicErrorBody("overloaded_error", `Overloaded (account of ${keys.anthropic})`) }
      ])
    })
    const stream = await chat("claude", { stream: true })
    expect(stream.status).toBe(200)
    expect(stream.text).toContain("[redacted]")
    for (const r of [denied, invalid, stream]) expectClean(r.text)
  })

  it("Gemini: API_KEY_INVALID with the key in the message and details, and a key in a quoted URL", async () => {
    gemini.reply({
      kind: "json",
      status: 400,
      body: { error: { code: 400, message: `API key not valid: ${keys.gemini}. Please pass a valid API key.`, status: "INVALID_ARGUMENT", details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com", key: keys.gemini } },
        { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: `API key not valid: ${keys.gemini}` }
      ] } }
    })
    const denied = await chat("gemini")
    expect(denied.status).toBe(502)
    expect(denied.text).toContain("rejected the gateway's credentials")
    gemini.reply({ kind: "json", status: 404, body: { error: { code: 404, message: `models/x is not found for https://generativelanguage.googleapis.com/v1beta/models/x?key=${keys.gemini}`, status: "NOT_FOUND" } } })
    const missing = await chat("gemini")
    expect(missing.status).toBe(502)
    expect(missing.text).toContain("?key=[redacted]")
    for (const r of [denied, missing]) expectClean(r.text)
  })

  it("an OpenAI-compatible server echoing a key of no known shape", async () => {
    compat.reply({ kind: "json", status: 400, body: { error: { message: `Invalid API key: ${keys.compat}`, type: "invalid_request_error" } } })
    const invalid = await chat("local")
    expect(invalid.status).toBe(400)
    expect(invalid.text).toContain("Invalid API key: [redacted]")
    expectClean(invalid.text)
  })

  it("nothing the gateway wrote in this file holds a key: bodies, log lines, spans, usage rows", async () => {
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ row: string }>`SELECT row_to_json(e)::text AS row FROM usage_events e`
      })
    )
    await new Promise((r) => setTimeout(r, 100))
    const spans = exporter.getFinishedSpans().map((s) => JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, status: s.status }))
    // The scan is only worth something if upstream text did reach these outputs, redacted.
    expect(bodies.length).toBeGreaterThanOrEqual(10)
    expect(spans.some((s) => s.includes("[redacted]"))).toBe(true)
    expect(rows.length).toBeGreaterThanOrEqual(10)
    const everything = [...bodies, ...logLines, ...spans, ...rows.map((r) => r.row)].join("\n")
    expectClean(everything)
  })
})
