import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import OpenAI from "openai"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { sseFrame } from "../support/FakeUpstream.ts"
import { openAiChunk, openAiCompletion, openAiTextFrames, openAiToolFrames } from "../support/OpenAiFixtures.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { validateAgainst } from "../support/OpenApiValidator.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"

describe("real clients against the gateway", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      server: { keepalive_seconds: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [
        {
          id: "gpt-test",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
          capabilities: { tools: true, structured_output: true },
          pricing: { input_per_mtok: 1, output_per_mtok: 2 }
        }
      ]
    })
  })
  const { upstream } = gw
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })

  it("openai SDK: create, and the body validates against CreateChatCompletionResponse", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const { data, response } = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).withResponse()
    expect(data.choices[0]!.message.content).toBe("Hello there!")
    expect(data.id).toMatch(/^svc_/)
    expect(response.headers.get("x-gateway-provider")).toBe("openai")
    expect(response.headers.get("x-gateway-attempts")).toBe("1")
    expect(validateAgainst("CreateChatCompletionResponse", data)).toEqual([])
  })

  it("openai SDK: stream, every chunk validates against CreateChatCompletionStreamResponse", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo", " world"]) })
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let usage: unknown
    for await (const chunk of stream) {
      expect(validateAgainst("CreateChatCompletionStreamResponse", chunk)).toEqual([])
      text += chunk.choices[0]?.delta.content ?? ""
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe("Hello world")
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 })
  })

  it("openai SDK: a tool round trip", async () => {
    upstream.reply({ kind: "sse", frames: openAiToolFrames() })
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "It is sunny in Paris." }) })
    const tools = [
      { type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
      { type: "function" as const, function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } } }
    ]
    const runner = client.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "weather in Paris?" }], tools })
    const first = await runner.finalChatCompletion()
    const calls = first.choices[0]!.message.tool_calls!
    expect(calls.map((c) => (c.type === "function" ? c.function.name : ""))).toEqual(["get_weather", "get_time"])
    expect(first.choices[0]!.finish_reason).toBe("tool_calls")
    const second = await client.chat.completions.create({
      model: "gpt-test",
      tools,
      messages: [
        { role: "user", content: "weather in Paris?" },
        first.choices[0]!.message,
        ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "sunny" }))
      ]
    })
    expect(second.choices[0]!.message.content).toBe("It is sunny in Paris.")
    const sent = upstream.requests[1]!.body as { messages: Array<Record<string, unknown>> }
    expect(sent.messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_abc" }, { id: "call_def" }] })
    expect(sent.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_abc", content: "sunny" },
      { role: "tool", tool_call_id: "call_def", content: "sunny" }
    ])
  })

  it("openai SDK: parse with a JSON schema", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "{\"city\":\"Paris\",\"temp\":21}" }) })
    const completion = await client.chat.completions.parse({
      model: "gpt-test",
      messages: [{ role: "user", content: "weather?" }],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "weather",
          strict: true,
          schema: { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false }
        }
      }
    })
    expect(completion.choices[0]!.message.parsed).toEqual({ city: "Paris", temp: 21 })
  })

  it("the SDK sees gateway errors as typed API errors", async () => {
    const error = await client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).type).toBe("not_found_error")
  })

  it("aborting the client closes the upstream connection within 1 s", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["a"]).slice(0, 2), hangAfter: true })
    const controller = new AbortController()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true }, {
      signal: controller.signal
    })
    const reader = res.body!.getReader()
    await reader.read()
    const closed = upstream.nextEarlyClose()
    const abortedAt = Date.now()
    controller.abort()
    await closed
    expect(Date.now() - abortedAt).toBeLessThan(1000)
  })

  it("bills a stream the client cancelled before usage came with estimated tokens, marked as estimated", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["abcdefgh"]).slice(0, 2), hangAfter: true })
    const fresh = await gw.createKey()
    const controller = new AbortController()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hello there" }], stream: true }, {
      key: fresh.secret,
      signal: controller.signal
    })
    const reader = res.body!.getReader()
    let seen = ""
    while (!seen.includes("abcdefgh")) seen += new TextDecoder().decode((await reader.read()).value)
    const closed = upstream.nextEarlyClose()
    controller.abort()
    await closed
    await new Promise((r) => setTimeout(r, 100))
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT e.cancelled, e.streamed, e.prompt_tokens, e.completion_tokens, e.detail, e.request_id
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${fresh.keyId}`
      })
    )
    expect(rows).toHaveLength(1)
    const detail = typeof rows[0]!["detail"] === "string" ? JSON.parse(rows[0]!["detail"] as string) : rows[0]!["detail"]
    // "hello there": 4 framing tokens + ceil(11 bytes / 4); "abcdefgh": ceil(8 / 4).
    expect(rows[0]).toMatchObject({ cancelled: true, streamed: true, prompt_tokens: 7, completion_tokens: 2 })
    expect(detail).toEqual({ usage_estimated: true })
    expect(rows[0]!["request_id"]).toBe(res.headers.get("x-request-id"))
  })

  it("writes the request id a JSON answer carries in x-request-id to its usage row", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const fresh = await gw.createKey()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hello" }] }, fresh.secret)
    expect(res.status).toBe(200)
    await res.text()
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ request_id: string }>`SELECT e.request_id FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${fresh.keyId}`
      })
    )
    expect(res.headers.get("x-request-id")).toMatch(/^req_/)
    expect(rows.map((r) => r.request_id)).toEqual([res.headers.get("x-request-id")])
  })

  it("sends keep-alive comments while the upstream is silent, before the first chunk and between chunks", async () => {
    // The upstream sends its headers, then nothing for 1.3 s before each frame; keep-alive is 1 s.
    upstream.reply({
      kind: "sse",
      frames: ["", sseFrame(openAiChunk({ role: "assistant", content: "slow" })), sseFrame(openAiChunk({}, "stop")), sseFrame("[DONE]")],
      delayMs: 1300
    })
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
    expect(res.status).toBe(200)
    const text = await res.text()
    // Every frame whole: comments and data frames never interleave inside one another.
    const frames = text.split("\n\n").filter((f) => f !== "")
    expect(frames.every((f) => f === ": keep-alive" || f.startsWith("data: "))).toBe(true)
    const kinds = frames.map((f) => (f.startsWith(":") ? "ka" : "data"))
    const firstData = kinds.indexOf("data")
    expect(firstData).toBeGreaterThan(0)
    expect(kinds.slice(firstData).includes("ka")).toBe(true)
    const sse = parseSse(text)
    expect(sse.chunks.map((c) => (c.choices as Array<any>)[0]?.delta.content ?? "").join("")).toBe("slow")
    expect(sse.done).toBe(true)
  })

  it("records one usage event per request with tokens, model, latency and time to first token", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["x"]) })
    const fresh = await gw.createKey()
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true }, fresh.secret)
    await res.text()
    await new Promise((r) => setTimeout(r, 50))
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT e.status, e.streamed, e.cancelled, e.prompt_tokens, e.completion_tokens, e.cached_tokens,
            e.ttft_ms, e.latency_ms, e.cost_nano_usd, m.name AS used_model, p.name AS provider
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq
          LEFT JOIN usage_labels m ON m.id = e.used_model LEFT JOIN usage_labels p ON p.id = e.provider
          WHERE k.id = ${fresh.keyId}`
      })
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: 200, streamed: true, cancelled: false, prompt_tokens: 12, completion_tokens: 3, cached_tokens: 4, used_model: "gpt-test", provider: "openai" })
    expect(Number(rows[0]!["ttft_ms"])).toBeGreaterThanOrEqual(0)
    // 12 input at $1/M + 3 output at $2/M = 18 micro-dollars
    expect(Number(rows[0]!["cost_nano_usd"])).toBe(18_000)
  })
})
