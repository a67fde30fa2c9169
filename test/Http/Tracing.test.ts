import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SpanKind } from "@opentelemetry/api"
import { Layer } from "effect"
import { tracingLayer } from "../../src/Observability.ts"
import type { FakeUpstream } from "../support/FakeUpstream.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { type GatewayOnUpstream, startGatewayOnUpstream, type TestGateway } from "../support/TestGateway.ts"

describe("OpenTelemetry traces", () => {
  const exporter = new InMemorySpanExporter()
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: { secret: string; projectId: string }
  let setup: GatewayOnUpstream

  beforeAll(async () => {
    setup = await startGatewayOnUpstream({
      observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
      config: (up) => ({
        providers: [{ id: "openai", kind: "openai", base_url: `${up.url}/v1`, api_key: "sk-upstream-secret-value" }],
        models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
      })
    })
    ;({ gw, upstream } = setup)
    key = setup.key
  })
  afterAll(() => setup?.stop())

  it("one SERVER span per request with route, status and project; no secrets anywhere", async () => {
    exporter.reset()
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
    })
    expect(res.status).toBe(200)
    await new Promise((r) => setTimeout(r, 100))
    const spans = exporter.getFinishedSpans()
    const servers = spans.filter((s) => s.kind === SpanKind.SERVER)
    expect(servers).toHaveLength(1)
    expect(servers[0]!.attributes).toMatchObject({
      "http.route": "/v1/chat/completions",
      "http.response.status_code": 200,
      "gateway.project_id": key.projectId
    })
    // Every provider attempt is a child span in the same trace.
    const attempt = spans.find((s) => s.name === "ProviderRouter.attempt")
    expect(attempt?.spanContext().traceId).toBe(servers[0]!.spanContext().traceId)
    expect(attempt?.attributes["gateway.provider"]).toBe("openai")
    const everything = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })))
    expect(everything).not.toContain(key.secret)
    expect(everything).not.toContain("sk-upstream-secret-value")
  })
})
