import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

/** Reads a Responses SSE body: each frame's `event:` name and its JSON data. */
const readEvents = async (response: Response) => {
  const text = await response.text()
  return text.split("\n\n").filter((frame) => frame !== "").map((frame) => {
    const lines = frame.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7)
    const data = JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6)) as Record<string, any>
    return { event, data }
  })
}

/** The typed event grammar of a streamed text answer, event by event, on every kind of provider. */
describe("Responses: streaming grammar on every provider", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })

  describe.each(responsesTargets)("$name", (target) => {
    it("a text stream: lifecycle, one message item, deltas, done events, sequence numbers in order", async () => {
      gw.upstreams[target.name].reply(target.kit.textStream)
      const res = await gw.postJson("/v1/responses", { model: target.model, input: "hi", stream: true })
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/event-stream")
      const events = await readEvents(res)
      expect(events.map((e) => e.data.type)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed"
      ])
      for (const [i, { event, data }] of events.entries()) {
        expect(event).toBe(data.type)
        expect(data.sequence_number).toBe(i)
        expect(validateStreamEvent(data)).toEqual([])
      }
      const item = events[2]!.data.item
      expect(events.slice(3, 9).every((e) => e.data.item_id === undefined || e.data.item_id === item.id)).toBe(true)
      expect(events.map((e) => e.data.delta).filter(Boolean)).toEqual(["Hel", "lo"])
      const completed = events.at(-1)!.data.response
      expect(completed).toMatchObject({ status: "completed", model: target.model, usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 } })
      expect(completed.output).toEqual([{ id: item.id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }] }])
      expect(events[0]!.data.response).toMatchObject({ id: completed.id, status: "in_progress", output: [], usage: { input_tokens: 0, output_tokens: 0 } })
    })

    it("responses.stream through the SDK gives the final response", async () => {
      gw.upstreams[target.name].reply(target.kit.textStream)
      const stream = client.responses.stream({ model: target.model, input: "hi" })
      let deltas = ""
      stream.on("response.output_text.delta", (event) => {
        deltas += event.delta
      })
      const final = await stream.finalResponse()
      expect(deltas).toBe("Hello")
      expect(final.output_text).toBe("Hello")
      expect(final.status).toBe("completed")
    })
  })
})
