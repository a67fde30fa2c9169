import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { anthropicFrames, anthropicMessage, anthropicThinkingEvents } from "../../support/AnthropicFixtures.ts"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { useGateway } from "../../support/UseGateway.ts"

const signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"

/** Anthropic's signed thinking travels through the client in encrypted_content and is replayed exactly. */
describe("Responses: reasoning round trip on Anthropic", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "anthropic", kind: "anthropic", base_url: `${upstream.url}/v1`, api_key: "sk-ant-up" }],
      models: [{ id: "claude-think", kind: "chat", deployments: [{ provider: "anthropic", model: "claude-up" }], capabilities: { reasoning: true, tools: true, max_output_tokens: 8192 } }]
    })
  })
  const { upstream } = gw
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })
  const assistantTurn = (i: number) => (upstream.requests[i]!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages[1]!

  it("thinking blocks with their signatures and redacted thinking come back on the next turn as Anthropic issued them", async () => {
    upstream.reply({
      kind: "json",
      status: 200,
      body: anthropicMessage({
        content: [
          { type: "thinking", thinking: "The user wants a number.", signature },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmN3kJ" },
          { type: "text", text: "42" }
        ]
      })
    })
    const first = await client.responses.create({ model: "claude-think", input: "A number?", reasoning: { effort: "medium" } })
    const item = first.output[0] as { type: string; encrypted_content?: string; summary: Array<{ text: string }> }
    expect(item.type).toBe("reasoning")
    expect(item.summary[0]!.text).toBe("The user wants a number.")
    expect(item.encrypted_content).toMatch(/^gwr1\./)

    upstream.reply({ kind: "json", status: 200, body: anthropicMessage({ content: [{ type: "text", text: "Another: 7" }] }) })
    await client.responses.create({ model: "claude-think", previous_response_id: first.id, input: "Another?", reasoning: { effort: "medium" } })
    expect(assistantTurn(1)).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user wants a number.", signature },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmN3kJ" },
        { type: "text", text: "42" }
      ]
    })

    // The same, with the reasoning item sent back by the client itself (store: false clients do this).
    upstream.reply({ kind: "json", status: 200, body: anthropicMessage({ content: [{ type: "text", text: "ok" }] }) })
    await client.responses.create({
      model: "claude-think",
      store: false,
      input: [{ role: "user", content: "A number?" }, ...(first.output as Array<OpenAI.Responses.ResponseInputItem>), { role: "user", content: "Another?" }]
    })
    expect(assistantTurn(2).content[0]).toEqual({ type: "thinking", thinking: "The user wants a number.", signature })
  })

  it("a streamed thinking block's signature ends up in the reasoning item's encrypted_content", async () => {
    upstream.reply({
      kind: "sse",
      frames: anthropicFrames(anthropicThinkingEvents({ thinking: ["Thinking ", "hard."], text: "Done." }))
    })
    const res = await gw.postJson("/v1/responses", { model: "claude-think", input: "hi", stream: true, reasoning: { effort: "low" } })
    const events = (await res.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\n")[1]!.slice(6)) as Record<string, any>)
    for (const event of events) expect(validateStreamEvent(event)).toEqual([])
    const done = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning")!
    expect(done.item.summary).toEqual([{ type: "summary_text", text: "Thinking hard." }])
    expect(done.item.encrypted_content).toMatch(/^gwr1\./)
    const completed = events.at(-1)!.response

    upstream.reply({ kind: "json", status: 200, body: anthropicMessage({ content: [{ type: "text", text: "again" }] }) })
    await client.responses.create({ model: "claude-think", previous_response_id: completed.id, input: "more", reasoning: { effort: "low" } })
    expect(assistantTurn(1).content[0]).toEqual({ type: "thinking", thinking: "Thinking hard.", signature })
  })
})

/** Gemini's thought signatures travel the same way and go back on the parts Gemini signed. */
describe("Responses: thought signatures on Gemini", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "gemini", kind: "gemini", base_url: `${upstream.url}/v1beta`, api_key: "AIza-up" }],
      models: [{ id: "gemini-think", kind: "chat", deployments: [{ provider: "gemini", model: "gemini-3-pro-preview" }], capabilities: { reasoning: true, tools: true } }]
    })
  })
  const { upstream } = gw
  const thoughtSignature = "CiQBVKhc7nx2cPtbTOUoaABbZ4wIwNqa+G9nIpqLdkz0KPcF0ooSNQFUqFzuZ2n5iQ8D2ZJ2A2BHZZcG4C4Oj0a9RX0MJ7cTq6b8Sw"
  const weather = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }

  it("a signed function call is replayed with its own signature, not the validator-skip value", async () => {
    upstream.reply({
      kind: "json",
      status: 200,
      body: {
        candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 }
      }
    })
    const first = (await (await gw.postJson("/v1/responses", { model: "gemini-think", input: "Weather in Paris?", tools: [weather] })).json()) as Record<string, any>
    const call = first["output"].find((item: any) => item.type === "function_call")
    expect(first["output"].find((item: any) => item.type === "reasoning").encrypted_content).toMatch(/^gwr1\./)

    upstream.reply({ kind: "json", status: 200, body: { candidates: [{ content: { role: "model", parts: [{ text: "Sunny." }] }, finishReason: "STOP", index: 0 }] } })
    const second = await gw.postJson("/v1/responses", {
      model: "gemini-think",
      tools: [weather],
      previous_response_id: first["id"],
      input: [{ type: "function_call_output", call_id: call.call_id, output: "Sunny, 24 C" }]
    })
    expect(second.status).toBe(200)
    const contents = (upstream.requests[1]!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents
    expect(contents[1]).toEqual({ role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" }, id: call.call_id }, thoughtSignature }] })
  })
})
