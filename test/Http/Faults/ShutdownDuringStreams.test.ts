import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { type FaultStorage, makeFaultStorage, usageRowsOf } from "../../support/FaultStorage.ts"
import { openAiTextFrames } from "../../support/OpenAiFixtures.ts"
import { parseSse } from "../../support/SseClient.ts"
import { startGateway, type TestGateway } from "../../support/TestGateway.ts"

/**
 * The fault matrix's shutdown: streams still running when the shutdown grace runs out are cut
 * with the error frame and [DONE] before the connection closes, and each is written to the
 * usage ledger once, as the cancelled 200 its client saw.
 */
describe("fault matrix: shutdown during streams", () => {
  let storage: FaultStorage
  const upstream = new FakeUpstream()
  let gw: TestGateway | undefined

  beforeAll(async () => {
    storage = await makeFaultStorage()
    await upstream.start()
    gw = await startGateway({
      storage,
      config: {
        server: { shutdown_grace_seconds: 1, keepalive_seconds: 30 },
        // The rows of the cut streams are written by the ledger's flush at shutdown, not by a
        // periodic flush that happens to be running when the server stops.
        usage: { flush_interval_ms: 60_000 },
        providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
        models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }]
      }
    })
  })
  afterAll(async () => {
    await gw?.stop()
    await upstream.stop()
    await storage?.cleanup()
  })

  it("a stream cut by the grace gets the error frame and [DONE]; its row is written once, cancelled", async () => {
    const key = await gw!.createKey()
    // Two streams that never finish on their own.
    upstream.always({ kind: "sse", frames: openAiTextFrames(["partial answer"]).slice(0, 2), hangAfter: true })
    const open = await Promise.all(
      [0, 1].map(() =>
        fetch(`${gw!.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
        })
      )
    )
    const reads = open.map(async (res) => {
      const reader = res.body!.getReader()
      let text = ""
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return text
        text += Buffer.from(value).toString("utf8")
      }
    })
    expect(open.map((r) => r.status)).toEqual([200, 200])
    const started = Date.now()
    const stopping = gw!.stop()
    const texts = await Promise.all(reads)
    await stopping
    gw = undefined
    expect(Date.now() - started).toBeLessThan(8000)
    for (const text of texts) {
      const sse = parseSse(text)
      expect(sse.chunks.map((c) => (c.choices as Array<any> | undefined)?.[0]?.delta?.content ?? "").join("")).toBe("partial answer")
      expect(sse.chunks.at(-1)).toEqual({ error: { message: expect.stringContaining("stopped"), type: "stream_error" }})
      expect(sse.done).toBe(true)
    }
    const rows = await usageRowsOf(storage, open.map((r) => r.headers.get("x-request-id")!))
    expect(rows.map((r) => [Number(r.status), r.streamed, r.cancelled])).toEqual([
      [200, true, true],
      [200, true, true]
    ])
  })
})
