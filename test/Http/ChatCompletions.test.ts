import { describe, expect, it } from "@effect/vitest"
import { openAiCompletion, openAiTextFrames, openAiToolFrames } from "../support/OpenAiFixtures.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"

describe("POST /v1/chat/completions through OpenAI", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream-secret" }],
      models: [
        {
          id: "gpt-test",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
          capabilities: { tools: true, structured_output: true, vision: true, logprobs: true }
        }
      ]
    })
  })
  const { upstream } = gw
  const post = (body: unknown) => gw.postJson("/v1/chat/completions", body)

  it("answers a plain completion in the spec's shape", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const res = await post({ model: "gpt-test", messages: [{ role: "developer", content: "be brief" }, { role: "user", content: "hi" }], max_tokens: 50, safety_identifier: "u-1" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, any>
    expect(body.id).toMatch(/^svc_/)
    expect(body.object).toBe("chat.completion")
    expect(body.model).toBe("gpt-test")
    expect(body.choices[0].message.content).toBe("Hello there!")
    expect(body.usage).toEqual({ prompt_tokens: 19, completion_tokens: 10, total_tokens: 29, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } })
    const sent = upstream.requests[0]!.body as Record<string, any>
    expect(sent.model).toBe("gpt-4o-mini")
    expect(sent.max_completion_tokens).toBe(50)
    expect(sent.max_tokens).toBeUndefined()
    expect(sent.user).toBe("u-1")
    expect(sent.messages[0]).toEqual({ role: "system", content: "be brief" })
    expect(upstream.requests[0]!.headers.authorization).toBe("Bearer sk-upstream-secret")
  })

  it("streams the exact 6.3 sequence and hides usage unless asked", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) })
    const res = await post({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const sse = parseSse(await res.text())
    expect(sse.done).toBe(true)
    const deltas = sse.chunks.map((c) => (c.choices as Array<any>)[0])
    expect(deltas[0]).toEqual({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })
    expect(deltas.slice(1, 3).map((d) => d.delta.content)).toEqual(["Hel", "lo"])
    expect(deltas[3]).toEqual({ index: 0, delta: {}, finish_reason: "stop" })
    expect(sse.chunks).toHaveLength(4)
    expect(new Set(sse.chunks.map((c) => c.id)).size).toBe(1)
    expect((upstream.requests[0]!.body as any).stream_options).toEqual({ include_usage: true })
  })

  it("adds the usage chunk when include_usage is true", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["a"]) })
    const res = await post({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
    const sse = parseSse(await res.text())
    const last = sse.chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 } })
  })

  it("streams tool calls per 6.4", async () => {
    upstream.reply({ kind: "sse", frames: openAiToolFrames() })
    const res = await post({
      model: "gpt-test",
      messages: [{ role: "user", content: "weather?" }],
      stream: true,
      tools: [
        { type: "function", function: { name: "get_weather", parameters: { type: "object" } } },
        { type: "function", function: { name: "get_time", parameters: { type: "object" } } }
      ]
    })
    const sse = parseSse(await res.text())
    const calls = sse.chunks.flatMap((c) => (c.choices as Array<any>).flatMap((ch) => ch.delta.tool_calls ?? []))
    expect(calls[0]).toEqual({ index: 0, id: "call_abc", type: "function", function: { name: "get_weather", arguments: "" } })
    const args = (i: number) => calls.filter((c) => c.index === i).map((c) => c.function.arguments).join("")
    expect(JSON.parse(args(0))).toEqual({ city: "Paris" })
    expect(JSON.parse(args(1))).toEqual({ tz: "CET" })
    expect((sse.chunks.at(-1)!.choices as Array<any>)[0].finish_reason).toBe("tool_calls")
  })

  it("ends a stream that fails mid-way with the 6.6 error frame", async () => {
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["partial"]).slice(0, 2), breakAfter: true })
    const res = await post({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
    const sse = parseSse(await res.text())
    expect(sse.done).toBe(true)
    const last = sse.chunks.at(-1)!
    expect(last).toEqual({ error: { message: expect.any(String), type: "stream_error" } })
  })
})
