import { describe, expect, it } from "@effect/vitest"
import { createOpenAI } from "@ai-sdk/openai"
import { ChatOpenAI } from "@langchain/openai"
import { generateText, jsonSchema, streamText, tool } from "ai"
import { openAiCompletion, openAiTextFrames, openAiToolFrames } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/** The Vercel AI SDK and LangChain, pointed at the gateway, work unchanged. */
describe("other real clients", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [{ id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }], capabilities: { tools: true } }]
    })
  })
  const { upstream } = gw

  it("Vercel AI SDK: generateText and streamText over chat completions", async () => {
    const provider = createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "Hi from the gateway" }) })
    const generated = await generateText({ model: provider.chat("gpt-test"), prompt: "hello" })
    expect(generated.text).toBe("Hi from the gateway")
    expect(generated.usage.inputTokens).toBe(19)

    upstream.reply({ kind: "sse", frames: openAiTextFrames(["Str", "eamed"]) })
    const streamed = streamText({ model: provider.chat("gpt-test"), prompt: "hello" })
    let text = ""
    for await (const piece of streamed.textStream) text += piece
    expect(text).toBe("Streamed")
  })

  it("Vercel AI SDK: a streamed tool call", async () => {
    const provider = createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })
    upstream.reply({ kind: "sse", frames: openAiToolFrames() })
    const result = streamText({
      model: provider.chat("gpt-test"),
      prompt: "weather and time?",
      tools: {
        get_weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }) }),
        get_time: tool({ inputSchema: jsonSchema<{ tz: string }>({ type: "object", properties: { tz: { type: "string" } } }) })
      }
    })
    const calls = await result.toolCalls
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { tz: "CET" }]
    ])
  })

  it("LangChain: invoke, stream and bound tools", async () => {
    const model = new ChatOpenAI({ model: "gpt-test", apiKey: gw.key.secret, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 })
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "LangChain works" }) })
    const answer = await model.invoke("hello")
    expect(answer.content).toBe("LangChain works")

    upstream.reply({ kind: "sse", frames: openAiTextFrames(["a", "b", "c"]) })
    let streamed = ""
    for await (const chunk of await model.stream("hello")) streamed += String(chunk.content)
    expect(streamed).toBe("abc")

    upstream.reply({
      kind: "json",
      status: 200,
      body: openAiCompletion({ content: null, toolCalls: [{ id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}" }] })
    })
    const withTools = model.bindTools([
      { type: "function", function: { name: "get_weather", description: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }
    ])
    const called = await withTools.invoke("weather in Paris?")
    expect(called.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]])
  })
})
