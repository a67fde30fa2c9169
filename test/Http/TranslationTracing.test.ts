import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"
import { tracingLayer } from "../../src/Observability.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/** The translation report on the request's trace, for a JSON answer and for a stream. */
describe("the translation report on the trace", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>,
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
    })
  })
  const { upstream } = gw
  const body = { model: "gpt-test", max_tokens: 20, top_k: 4, messages: [{ role: "user", content: "hi" }] }
  const headers = { "anthropic-version": "2023-06-01" }

  const annotated = async () => {
    await new Promise((r) => setTimeout(r, 100))
    return exporter.getFinishedSpans().filter((s) => s.attributes["gateway.translation.dropped"] !== undefined)
  }

  it("a JSON answer", async () => {
    exporter.reset()
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    expect((await gw.postJson("/v1/messages", body, { headers })).status).toBe(200)
    const spans = await annotated()
    expect(spans).toHaveLength(1)
    expect(spans[0]!.attributes["gateway.translation.dropped"]).toEqual(["top_k"])
    expect(spans[0]!.attributes["gateway.translation.rewritten"]).toEqual(["max_tokens->max_completion_tokens"])
  })

  it("a stream", async () => {
    exporter.reset()
    upstream.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) })
    const res = await gw.postJson("/v1/messages", { ...body, stream: true }, { headers })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("message_stop")
    const spans = await annotated()
    expect(spans).toHaveLength(1)
    expect(spans[0]!.attributes["gateway.translation.dropped"]).toEqual(["top_k"])
  })
})
