import { describe, expect, it } from "@effect/vitest"
import { SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"
import { tracingLayer } from "../../src/Observability.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/** Provider attempt spans carry the OpenTelemetry GenAI semantic conventions. */
describe("GenAI attributes on attempt spans", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
    upstreams: ["openai", "groq"],
    config: ({ openai, groq }) => ({
      routing: { max_attempts: 2, attempts_per_model: 1, base_backoff_ms: 1, max_backoff_ms: 2 },
      providers: [
        { id: "main", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-upstream-genai-0001" },
        { id: "fast", kind: "openai-compatible", profile: "groq", base_url: `${groq.url}/v1`, api_key: "gsk-upstream-genai-01" }
      ],
      models: [
        { id: "gpt-test", kind: "chat", deployments: [{ provider: "main", model: "gpt-4o-mini" }], fallbacks: ["llama"] },
        { id: "llama", kind: "chat", deployments: [{ provider: "fast", model: "llama-3.1-8b-instant" }] }
      ]
    })
  })
  const attempts = () => exporter.getFinishedSpans().filter((s) => s.name === "ProviderRouter.attempt")
  const chat = (extra: Record<string, unknown> = {}) =>
    gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], ...extra })

  it("a plain call: operation, provider, request and response model, usage and finish reasons", async () => {
    exporter.reset()
    gw.upstreams.openai.reply({ kind: "json", status: 200, body: openAiCompletion({ usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } }) })
    expect((await chat()).status).toBe(200)
    await expect.poll(() => attempts().length).toBe(1)
    expect(attempts()[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 9,
      "gen_ai.usage.output_tokens": 4,
      "gen_ai.response.finish_reasons": ["stop"],
      "gateway.provider": "main",
      "gateway.model": "gpt-test"
    })
  })

  it("a stream that falls back: one span per attempt, the failed one marked as an error", async () => {
    exporter.reset()
    gw.upstreams.openai.reply({ kind: "json", status: 500, body: { error: { message: "boom", type: "server_error", param: null, code: null } } })
    gw.upstreams.groq.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) })
    const res = await chat({ stream: true, stream_options: { include_usage: true } })
    expect(res.status).toBe(200)
    await res.text()
    await expect.poll(() => attempts().length).toBe(2)
    const [failed, served] = [...attempts()].sort((a, b) => Number(a.attributes["gateway.attempt"]) - Number(b.attributes["gateway.attempt"]))
    expect(failed!.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini" })
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR)
    expect(served!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "groq",
      "gen_ai.request.model": "llama-3.1-8b-instant",
      "gen_ai.response.model": "llama-3.1-8b-instant",
      // The fixture's usage chunk: 12 prompt and 3 completion tokens.
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.response.finish_reasons": ["stop"],
      "gateway.model": "llama"
    })
    expect(served!.status.code).not.toBe(SpanStatusCode.ERROR)
    expect(served!.spanContext().traceId).toBe(failed!.spanContext().traceId)
  })
})
