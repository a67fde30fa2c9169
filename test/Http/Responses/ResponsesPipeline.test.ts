import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { tracingLayer } from "../../../src/Observability.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

/**
 * A Responses request is metered and traced as chat is: one usage row (the chat endpoint) with
 * the upstream's own token counts, the dialect and the translation report, and the report on
 * the request's span; for a JSON answer and for a stream, translated and native.
 */
describe("Responses: the usage row and the trace", () => {
  const exporter = new InMemorySpanExporter()
  const gw = useGateway({
    upstreams: responsesUpstreams,
    config: (upstreams) => responsesConfig(upstreams),
    observability: Layer.orDie(tracingLayer(new SimpleSpanProcessor(exporter))) as Layer.Layer<never>
  })

  const rowsOf = (keyId: string) =>
    gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ prompt_tokens: number; completion_tokens: number; streamed: boolean; status: number; detail: unknown }>`
          SELECT e.prompt_tokens, e.completion_tokens, e.streamed, e.status, e.detail FROM usage_events e
          JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${keyId} ORDER BY e.id`
        return rows.map((r) => ({ ...r, detail: typeof r.detail === "string" ? JSON.parse(r.detail) : r.detail }))
      })
    )
  /** The finished spans once `done` holds of them (spans end after the answer is sent), or after 5 s. */
  const spansAfter = async (done: (spans: ReturnType<typeof exporter.getFinishedSpans>) => boolean) => {
    for (let i = 0; i < 500 && !done(exporter.getFinishedSpans()); i++) await new Promise((r) => setTimeout(r, 10))
    return exporter.getFinishedSpans()
  }
  const annotated = (spans: ReadonlyArray<{ readonly attributes: Record<string, unknown> }>) =>
    spans.filter((s) => s.attributes["gateway.translation.dropped"] !== undefined)

  it("translated (Anthropic): the row keeps the upstream's tokens, the dialect and the report; the span the dropped field", async () => {
    exporter.reset()
    const anthropic = responsesTargets[1]!
    gw.upstreams.anthropic.reply(anthropic.kit.text)
    gw.upstreams.anthropic.reply(anthropic.kit.textStream)
    const key = await gw.createKey()
    const body = { model: anthropic.model, input: "hi", text: { verbosity: "low" } }
    const json = await gw.postJson("/v1/responses", body, key.secret)
    expect(json.status).toBe(200)
    const report = json.headers.get("x-gateway-translation")!
    expect(report).toContain("dropped=text.verbosity")
    const stream = await gw.postJson("/v1/responses", { ...body, stream: true }, key.secret)
    expect(await stream.text()).toContain("response.completed")
    const rows = await rowsOf(key.keyId)
    expect(rows.map((r) => [r.prompt_tokens, r.completion_tokens, r.streamed, r.status])).toEqual([[19, 10, false, 200], [12, 3, true, 200]])
    for (const row of rows) expect(row.detail).toMatchObject({ dialect: "responses", translation: report })
    const spans = annotated(await spansAfter((all) => annotated(all).length >= 2))
    expect(spans).toHaveLength(2)
    for (const span of spans) expect(span.attributes["gateway.translation.dropped"]).toEqual(["text.verbosity"])
  })

  it("native (OpenAI's Responses API): metered from OpenAI's usage, nothing reported translated", async () => {
    exporter.reset()
    const openai = responsesTargets[0]!
    gw.upstreams.openai.reply(openai.kit.text)
    const key = await gw.createKey()
    const res = await gw.postJson("/v1/responses", { model: openai.model, input: "hi", text: { verbosity: "low" } }, key.secret)
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-translation")).toBeNull()
    const rows = await rowsOf(key.keyId)
    expect(rows.map((r) => [r.prompt_tokens, r.completion_tokens])).toEqual([[19, 10]])
    expect(rows[0]!.detail).toEqual({ dialect: "responses" })
    // A JSON answer is written after the use case's span ended: that span carries the report when there is one.
    const finished = await spansAfter((all) => all.some((s) => s.name === "ChatCompletions.run"))
    expect(finished.filter((s) => s.name === "ChatCompletions.run")).toHaveLength(1)
    expect(annotated(finished)).toEqual([])
  })
})
