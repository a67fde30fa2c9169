import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import { tracingLayer } from "../../src/Observability.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

// The upstream client is undici's dispatcher, not Effect's HttpClient: with a tracer installed
// it must still open a CLIENT span per provider call and pass the trace on to the provider.
describe("traces across the upstream call", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream-secret-value" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
    })
  })
  const { upstream } = gw
  const post = (body: Record<string, unknown>) =>
    gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], ...body })

  it.each([
    ["a plain call", {}, { kind: "json", status: 200, body: openAiCompletion() }],
    ["a stream", { stream: true }, { kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) }]
  ] as const)("%s: one CLIENT span in the request's trace, and the provider receives it", async (_, body, reply) => {
    exporter.reset()
    upstream.reset()
    upstream.reply(reply)
    const res = await post(body)
    expect(res.status).toBe(200)
    await res.text()
    await new Promise((r) => setTimeout(r, 100))
    const spans = exporter.getFinishedSpans()
    const server = spans.find((s) => s.kind === SpanKind.SERVER)
    // Database queries are CLIENT spans too; the provider call is the one named after its method.
    const clients = spans.filter((s) => s.kind === SpanKind.CLIENT && s.name === "POST")
    expect(clients).toHaveLength(1)
    expect(clients[0]!.spanContext().traceId).toBe(server?.spanContext().traceId)
    expect(clients[0]!.attributes).toMatchObject({ "http.request.method": "POST", "http.response.status_code": 200 })
    const traceparent = upstream.requests[0]?.headers["traceparent"]
    expect(traceparent).toBe(`00-${clients[0]!.spanContext().traceId}-${clients[0]!.spanContext().spanId}-01`)
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain("sk-upstream-secret-value")
  })
})
