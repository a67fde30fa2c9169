import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import { sseFrame } from "../../support/FakeUpstream.ts"
import { openAiChunk, openAiCompletion, openAiTextFrames, openAiUsageChunk } from "../../support/OpenAiFixtures.ts"
import { stalledRequest } from "../../support/RawHttp.ts"
import { parseSse } from "../../support/SseClient.ts"
import { useGateway } from "../../support/UseGateway.ts"

interface Row {
  readonly request_id: string
  readonly status: number
  readonly streamed: boolean
  readonly cancelled: boolean
  readonly attempts: number
  readonly completion_tokens: number
}

/**
 * The fault matrix's upstream and client faults: an upstream that resets before its headers,
 * inside its body or inside a stream, streams that break their own format, and clients that
 * stop sending their body. For each, the client's answer and the request's single usage row.
 */
describe("fault matrix: upstreams and clients that break off", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      server: { keepalive_seconds: 30 },
      resilience: { body_read_timeout_seconds: 1 },
      routing: { attempts_per_model: 3, max_attempts: 3, base_backoff_ms: 1, max_backoff_ms: 2, failure_threshold: 1000 },
      files: { max_upload_mb: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
    }),
    key: { withUser: true }
  })
  const chat = (body: Record<string, unknown> = {}) =>
    gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }], ...body })
  const rowsOf = async (responses: ReadonlyArray<Response>): Promise<ReadonlyArray<Row>> => {
    const ids = responses.map((r) => r.headers.get("x-request-id")!)
    return gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<Row>`SELECT request_id, status, streamed, cancelled, attempts, completion_tokens FROM usage_events
          WHERE request_id IN ${sql.in(ids)} ORDER BY id`
        return rows.map((r) => ({ ...r, status: Number(r.status), attempts: Number(r.attempts), completion_tokens: Number(r.completion_tokens) }))
      })
    )
  }
  const contentOf = (text: string) => parseSse(text).chunks.map((c) => (c.choices as Array<any> | undefined)?.[0]?.delta?.content ?? "").join("")
  const finishes = (text: string) => parseSse(text).chunks.flatMap((c) => (c.choices as Array<any> | undefined)?.map((ch) => ch.finish_reason) ?? []).filter((f) => f !== null)

  it("an upstream that resets before its headers or inside its body is retried; one that always does is a 5xx, each with one row", async () => {
    gw.upstream.reply({ kind: "reset" }).reply({ kind: "partial", status: 200, body: JSON.stringify(openAiCompletion()), bytes: 40 })
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "third time" }) })
    const recovered = await chat()
    expect(recovered.status).toBe(200)
    expect(((await recovered.json()) as any).choices[0].message.content).toBe("third time")
    expect(recovered.headers.get("x-gateway-attempts")).toBe("3")
    gw.upstream.always({ kind: "reset" })
    const failed = await chat()
    expect([502, 503]).toContain(failed.status)
    expect(((await failed.json()) as any).error.type).toBe("upstream_error")
    const rows = await rowsOf([recovered, failed])
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([[200, 3], [failed.status, 3]])
  })

  it("a stream reset before its first content falls back invisibly; reset after it ends with the error frame and no 'stop'", async () => {
    gw.upstream.reply({ kind: "sse", frames: [sseFrame(openAiChunk({ role: "assistant", content: "" }))], breakAfter: true })
    gw.upstream.reply({ kind: "sse", frames: openAiTextFrames(["whole"]) })
    const retried = await chat({ stream: true })
    const retriedText = await retried.text()
    expect(contentOf(retriedText)).toBe("whole")
    expect(finishes(retriedText)).toEqual(["stop"])
    expect(retried.headers.get("x-gateway-attempts")).toBe("2")

    gw.upstream.reply({ kind: "sse", frames: openAiTextFrames(["half"]).slice(0, 2), breakAfter: true })
    const broken = await chat({ stream: true })
    const brokenText = await broken.text()
    expect(contentOf(brokenText)).toBe("half")
    expect(parseSse(brokenText).chunks.at(-1)).toEqual({ error: { message: expect.any(String), type: "stream_error" } })
    expect(parseSse(brokenText).done).toBe(true)
    expect(finishes(brokenText)).toEqual([])
    const rows = await rowsOf([retried, broken])
    expect(rows.map((r) => [r.status, r.streamed, r.attempts])).toEqual([[200, true, 2], [200, true, 1]])
    // Usage never came for the broken stream: what was generated is estimated, not zero.
    expect(rows[1]!.completion_tokens).toBeGreaterThan(0)
  })

  it("a malformed event, or an end without [DONE] even after the finish reason, is a stream error, never a 'stop'", async () => {
    const malformed = [...openAiTextFrames(["one"]).slice(0, 2), "data: {not json\n\n", ...openAiTextFrames(["two"]).slice(1)]
    gw.upstream.reply({ kind: "sse", frames: malformed })
    const first = await (await chat({ stream: true })).text()
    expect(parseSse(first).chunks.at(-1)).toMatchObject({ error: { type: "stream_error" } })
    expect(finishes(first)).toEqual([])

    const noTerminator = [sseFrame(openAiChunk({ role: "assistant", content: "" })), sseFrame(openAiChunk({ content: "done?" })), sseFrame(openAiChunk({}, "stop")), sseFrame(openAiUsageChunk())]
    gw.upstream.reply({ kind: "sse", frames: noTerminator })
    const second = await (await chat({ stream: true, stream_options: { include_usage: true } })).text()
    expect(contentOf(second)).toBe("done?")
    expect(parseSse(second).chunks.at(-1)).toMatchObject({ error: { type: "stream_error" } })
    expect(finishes(second)).toEqual([])
  })

  it("a stream retries before its first content exactly as often as a plain request", async () => {
    gw.upstream.always({ kind: "json", status: 503, body: { error: { message: "overloaded" } } })
    const plain = await chat()
    const plainCalls = gw.upstream.requests.length
    gw.upstream.requests.length = 0
    const streamed = await chat({ stream: true })
    expect(streamed.status).toBe(plain.status)
    expect(plainCalls).toBe(3)
    expect(gw.upstream.requests).toHaveLength(plainCalls)
  })

  it("a JSON body that stalls is answered 408 in the error shape and its connection closed; the row says 408", async () => {
    const head = [
      "POST /v1/chat/completions HTTP/1.1",
      "Host: gateway",
      `Authorization: Bearer ${gw.key.secret}`,
      "Content-Type: application/json",
      "Content-Length: 200",
      "",
      ""
    ].join("\r\n")
    const { text, closedAfterMs } = await stalledRequest(gw.url, head, '{"model":"gpt-test",')
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(text.toLowerCase()).toContain("connection: close")
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as any
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: null })
    expect(closedAfterMs).toBeGreaterThanOrEqual(900)
    expect(closedAfterMs).toBeLessThan(5000)
    const id = /x-request-id: (\S+)/i.exec(text)![1]!
    // The same through the platform's reader, which answers `Expect: 100-continue` first.
    const expecting = await stalledRequest(gw.url, head.replace("Content-Length: 200", "Content-Length: 200\r\nExpect: 100-continue"), '{"model":')
    expect(expecting.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 408 /)
    const expectingId = /x-request-id: (\S+)/i.exec(expecting.text)![1]!
    const rows = await rowsOf([id, expectingId].map((rid) => new Response(null, { headers: { "x-request-id": rid } })))
    expect(rows.map((r) => r.status)).toEqual([408, 408])
  })

  it("an upload that stalls is answered 408, its connection closed and nothing kept", async () => {
    const boundary = "----stall"
    const preamble = `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nsome bytes`
    const head = [
      "POST /v1/files HTTP/1.1",
      "Host: gateway",
      `Authorization: Bearer ${gw.key.secret}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      "Content-Length: 100000",
      "",
      ""
    ].join("\r\n")
    const { text, closedAfterMs } = await stalledRequest(gw.url, head, preamble)
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(closedAfterMs).toBeLessThan(5000)
    const list = (await (await fetch(`${gw.url}/v1/files`, { headers: gw.auth() })).json()) as any
    expect(list.data).toEqual([])
  })
})
