import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { sseFrame } from "../support/FakeUpstream.ts"
import { openAiChunk, openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"

describe("routing over HTTP: fallback, commit point, headers and usage", () => {
  const gw = useGateway({
    upstreams: ["primary", "secondary"],
    config: ({ primary, secondary }) => ({
      routing: { attempts_per_model: 1, base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 100 },
      providers: [
        { id: "primary", kind: "openai", base_url: `${primary.url}/v1`, api_key: "k1" },
        { id: "secondary", kind: "openai-compatible", profile: "vllm", base_url: `${secondary.url}/v1`, api_key: "k2" },
        { id: "impatient", kind: "openai", base_url: `${primary.url}/v1`, api_key: "k3", timeouts: { first_byte_ms: 400, idle_ms: 300 } }
      ],
      models: [
        { id: "main", kind: "chat", deployments: [{ provider: "primary", model: "p-model" }], fallbacks: ["backup"] },
        { id: "backup", kind: "chat", deployments: [{ provider: "secondary", model: "s-model" }] },
        { id: "timed", kind: "chat", deployments: [{ provider: "impatient", model: "t-model" }] }
      ]
    })
  })
  const { primary, secondary } = gw.upstreams
  const post = (body: Record<string, unknown>) => gw.postJson("/v1/chat/completions", body)

  it("falls back on 503; `model`, headers and the usage event name what served", async () => {
    primary.reply({ kind: "json", status: 503, body: { error: { message: "overloaded" } } })
    secondary.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "from backup" }) })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }], max_tokens: 5 })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.model).toBe("backup")
    expect(body.choices[0].message.content).toBe("from backup")
    expect(res.headers.get("x-gateway-provider")).toBe("secondary")
    expect(res.headers.get("x-gateway-attempts")).toBe("2")
    // The vllm profile sends the cap as max_tokens.
    expect((secondary.requests[0]!.body as any).max_tokens).toBe(5)
    const detail = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ attempts: number; detail: unknown }>`SELECT e.attempts, e.detail FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq
          WHERE k.id = ${gw.key.keyId} ORDER BY e.id DESC LIMIT 1`
      })
    )
    expect(detail[0]!.attempts).toBe(2)
    const parsed = typeof detail[0]!.detail === "string" ? JSON.parse(detail[0]!.detail) : detail[0]!.detail
    expect(parsed.attempts.map((a: any) => [a.provider, a.outcome, a.status ?? null])).toEqual([
      ["primary", "error", 503],
      ["secondary", "ok", null]
    ])
  })

  it("a stream failing before its first content falls back invisibly", async () => {
    primary.reply({ kind: "sse", frames: [sseFrame(openAiChunk({ role: "assistant", content: "" })), sseFrame({ error: { message: "boom", type: "server_error" } })] })
    secondary.reply({ kind: "sse", frames: openAiTextFrames(["fine"]) })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }], stream: true })
    expect(res.status).toBe(200)
    const sse = parseSse(await res.text())
    expect(sse.chunks.every((c) => c.model === "backup")).toBe(true)
    expect(sse.chunks.filter((c) => (c.choices as Array<any>)[0]?.delta.role === "assistant")).toHaveLength(1)
    expect(sse.chunks.map((c) => (c.choices as Array<any>)[0]?.delta.content ?? "").join("")).toBe("fine")
    expect(sse.done).toBe(true)
  })

  it("a stream failing after its first content ends with the error frame, no switch", async () => {
    primary.reply({ kind: "sse", frames: openAiTextFrames(["half"]).slice(0, 2), breakAfter: true })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }], stream: true })
    const sse = parseSse(await res.text())
    expect(sse.chunks.at(-1)).toEqual({ error: { message: expect.any(String), type: "stream_error" } })
    expect(sse.done).toBe(true)
    expect(secondary.requests).toHaveLength(0)
  })

  it("when every route fails: 503 upstream_error saying what was tried", async () => {
    primary.reply({ kind: "json", status: 503, body: { error: { message: "down" } } })
    secondary.reply({ kind: "json", status: 500, body: { error: { message: "also down" } } })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }] })
    expect([502, 503]).toContain(res.status)
    const body = (await res.json()) as any
    expect(body.error.type).toBe("upstream_error")
    expect(body.error.message).toContain("main via primary")
    expect(body.error.message).toContain("backup via secondary")
  })

  it("when every route is rate limited: 429 with Retry-After", async () => {
    primary.reply({ kind: "json", status: 429, headers: { "retry-after": "3" }, body: { error: { message: "slow down" } } })
    secondary.reply({ kind: "json", status: 429, headers: { "retry-after": "2" }, body: { error: { message: "slow down" } } })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }] })
    expect(res.status).toBe(429)
    expect(((await res.json()) as any).error.type).toBe("rate_limit_error")
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  })

  it("first-byte timeout on the body: a silent upstream is an upstream timeout, not a hang", async () => {
    primary.always({ kind: "hang" })
    const started = Date.now()
    const res = await post({ model: "timed", messages: [{ role: "user", content: "hi" }], stream: true })
    expect(res.status).toBe(504)
    expect(((await res.json()) as any).error.type).toBe("upstream_error")
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it("idle timeout after the first content ends the stream with the error frame", async () => {
    primary.reply({ kind: "sse", frames: openAiTextFrames(["first"]).slice(0, 2), hangAfter: true })
    const res = await post({ model: "timed", messages: [{ role: "user", content: "hi" }], stream: true })
    const sse = parseSse(await res.text())
    expect(sse.chunks.map((c) => (c.choices as Array<any> | undefined)?.[0]?.delta.content ?? "").join("")).toBe("first")
    expect(sse.chunks.at(-1)).toEqual({ error: { message: expect.stringContaining("silent"), type: "stream_error" } })
    expect(sse.done).toBe(true)
  })

  it("a failed stream before any byte is still a proper HTTP error", async () => {
    primary.reply({ kind: "json", status: 400, body: { error: { message: "context too long", param: "messages" } } })
    const res = await post({ model: "main", messages: [{ role: "user", content: "hi" }], stream: true })
    expect(res.status).toBe(400)
    const body = (await res.json()) as any
    expect(body.error).toMatchObject({ type: "invalid_request_error", message: "context too long", param: "messages" })
    expect(secondary.requests).toHaveLength(0)
  })
})
