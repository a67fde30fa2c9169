import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SpanKind } from "@opentelemetry/api"
import { Layer } from "effect"
import { tracingLayer } from "../../src/Observability.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

describe("OpenTelemetry traces", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-upstream-secret-value" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
    })
  })
  const { upstream } = gw

  it("one SERVER span per request with route, status and project; no secrets anywhere", async () => {
    exporter.reset()
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
    expect(res.status).toBe(200)
    await new Promise((r) => setTimeout(r, 100))
    const spans = exporter.getFinishedSpans()
    const servers = spans.filter((s) => s.kind === SpanKind.SERVER)
    expect(servers).toHaveLength(1)
    expect(servers[0]!.attributes).toMatchObject({
      "http.route": "/v1/chat/completions",
      "http.response.status_code": 200,
      "gateway.project_id": gw.key.projectId
    })
    // Every provider attempt is a child span in the same trace.
    const attempt = spans.find((s) => s.name === "ProviderRouter.attempt")
    expect(attempt?.spanContext().traceId).toBe(servers[0]!.spanContext().traceId)
    expect(attempt?.attributes["gateway.provider"]).toBe("openai")
    const everything = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })))
    expect(everything).not.toContain(gw.key.secret)
    expect(everything).not.toContain("sk-upstream-secret-value")
  })
})
