import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { validateAgainst } from "../../support/OpenApiValidator.ts"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { useGateway } from "../../support/UseGateway.ts"

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false
}
const time = { type: "function" as const, name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } }, strict: false }
const answerSchema = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"], additionalProperties: false }
const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

const wire = (response: unknown) => {
  const { output_text: _text, output_parsed: _parsed, ...rest } = response as Record<string, unknown>
  return rest
}

/** Tools over two turns, streamed tool calls, structured output and images, on every kind of provider. */
describe("Responses: tools, structured output, images", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })

  describe.each(responsesTargets)("$name", (target) => {
    const upstream = () => gw.upstreams[target.name]

    it("a function call, then its output in the second turn", async () => {
      upstream().reply(target.kit.toolCall)
      const first = await client.responses.create({ model: target.model, input: "Weather in Paris?", tools: [weather] })
      expect(validateAgainst("Response", wire(first))).toEqual([])
      const call = first.output.find((item) => item.type === "function_call")
      expect(call).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" })
      expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Paris" })
      expect(first.tools).toEqual([{ ...weather, strict: false }])

      upstream().reply(target.kit.text)
      const callId = (call as { call_id: string }).call_id
      const second = await client.responses.create({
        model: target.model,
        tools: [weather],
        input: [
          { role: "user", content: "Weather in Paris?" },
          ...(first.output.filter((item) => item.type !== "reasoning") as Array<OpenAI.Responses.ResponseInputItem>),
          { type: "function_call_output", call_id: callId, output: "Sunny, 24 C" }
        ]
      })
      expect(second.output_text).toBe("Hello there!")
      const sent = JSON.stringify(upstream().requests[1]!.body)
      expect(sent).toContain("Sunny, 24 C")
      expect(sent).toContain("get_weather")
      if (target.name !== "gemini") expect(sent).toContain(callId)
    })

    it("streamed function calls: item added, argument deltas, arguments done, item done", async () => {
      upstream().reply(target.kit.parallelToolStream)
      const res = await gw.postJson("/v1/responses", { model: target.model, input: "weather and time?", tools: [weather, time], stream: true })
      const events = (await res.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\n")[1]!.slice(6)) as Record<string, any>)
      for (const event of events) expect(validateStreamEvent(event)).toEqual([])
      const types = events.map((e) => e.type)
      expect(types.filter((t) => t === "response.function_call_arguments.done")).toHaveLength(2)
      expect(types).toContain("response.function_call_arguments.delta")
      const added = events.filter((e) => e.type === "response.output_item.added" && e.item.type === "function_call")
      expect(added.map((e) => e.item.name)).toEqual(["get_weather", "get_time"])
      const final = events.at(-1)!
      expect(final.type).toBe("response.completed")
      const calls = final.response.output.filter((item: any) => item.type === "function_call")
      expect(calls.map((c: any) => JSON.parse(c.arguments))).toEqual([{ city: "Paris" }, { tz: "CET" }])
      expect(calls.map((c: any) => c.id)).toEqual(added.map((e) => e.item.id))
    })

    it("structured output: text.format json_schema through responses.parse", async () => {
      upstream().reply(target.kit.jsonSchema)
      const parsed = await client.responses.parse({
        model: target.model,
        input: "The answer?",
        text: { format: { type: "json_schema", name: "answer", schema: answerSchema, strict: true } }
      })
      expect(parsed.output_parsed).toEqual({ answer: 42 })
      expect(parsed.text?.format).toMatchObject({ type: "json_schema", name: "answer", strict: true })
      target.kit.assertJsonSchema(upstream().requests[0]!, answerSchema)
    })

    it("an input_image reaches the provider as its image", async () => {
      upstream().reply(target.kit.text)
      const response = await client.responses.create({
        model: target.model,
        input: [{ role: "user", content: [{ type: "input_text", text: "What is this?" }, { type: "input_image", image_url: `data:image/png;base64,${pngBase64}`, detail: "auto" }] }]
      })
      expect(response.output_text).toBe("Hello there!")
      target.kit.assertImage(upstream().requests[0]!, pngBase64)
    })
  })
})
