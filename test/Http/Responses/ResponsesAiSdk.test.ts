import { describe, expect, it } from "@effect/vitest"
import { createOpenAI } from "@ai-sdk/openai"
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

/** The Vercel AI SDK's `openai(model)` speaks the Responses API by default: it works unchanged on every provider. */
describe("Responses: the Vercel AI SDK", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })
  const openai = () => createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })

  describe.each(responsesTargets)("$name", (target) => {
    const upstream = () => gw.upstreams[target.name]

    it("generateText and streamText", async () => {
      upstream().reply(target.kit.text)
      const generated = await generateText({ model: openai()(target.model), prompt: "hello" })
      expect(generated.text).toBe("Hello there!")
      expect(generated.usage.inputTokens).toBe(19)
      expect(generated.usage.outputTokens).toBe(10)
      expect(upstream().requests).toHaveLength(1)

      upstream().reply(target.kit.textStream)
      const streamed = streamText({ model: openai()(target.model), prompt: "hello" })
      let text = ""
      for await (const piece of streamed.textStream) text += piece
      expect(text).toBe("Hello")
      expect((await streamed.usage).inputTokens).toBe(12)
      expect(await streamed.finishReason).toBe("stop")
    })

    it("a tool loop over two steps (the second step refers to stored items)", async () => {
      upstream().reply(target.kit.toolCall)
      upstream().reply(target.kit.text)
      const result = await generateText({
        model: openai()(target.model),
        prompt: "Weather in Paris?",
        stopWhen: stepCountIs(2),
        tools: {
          get_weather: tool({
            inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
            execute: async ({ city }) => `Sunny in ${city}`
          })
        }
      })
      expect(result.steps).toHaveLength(2)
      expect(result.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toEqual([["get_weather", { city: "Paris" }]])
      expect(result.text).toBe("Hello there!")
      expect(JSON.stringify(upstream().requests[1]!.body)).toContain("Sunny in Paris")
    })
  })
})
