import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { reasoning, responsesBody, responsesFrames, responsesTextEvents, responsesUsage, textMessage } from "../../support/OpenAiResponsesFixtures.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { useGateway } from "../../support/UseGateway.ts"

const encrypted = "gAAAAABoISQ24OyVRYbkYfukM4w2Tn2cn9wZ2rQmzJTWl9lJ8S1ylk1RGJ2XC2Vjs0fWh2bQx7rWFrLhQ4Qx5jY2"

/** On an `openai` provider the Responses request goes to OpenAI's own /v1/responses: reasoning survives. */
describe("Responses: native passthrough to OpenAI", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [{ id: "o-think", kind: "chat", deployments: [{ provider: "openai", model: "o4-mini" }], capabilities: { reasoning: true, tools: true } }]
    })
  })
  const { upstream } = gw
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })
  const sent = (i: number) => upstream.requests[i]!.body as Record<string, any>

  it("reasoning items and encrypted_content come back as OpenAI sent them, and go back on the next turn", async () => {
    upstream.reply({
      kind: "json",
      status: 200,
      body: responsesBody([reasoning("rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7", "Thinking about names.", encrypted), textMessage("msg_1", "Hi Alice.")], {
        usage: responsesUsage(120, 40, { cached: 64, reasoning: 32 })
      })
    })
    const first = await client.responses.create({ model: "o-think", input: "My name is Alice.", reasoning: { effort: "low", summary: "auto" } })
    expect(upstream.requests[0]!.url).toBe("/v1/responses")
    expect(sent(0)).toMatchObject({ model: "o4-mini", store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "low", summary: "auto" } })
    expect(first.model).toBe("o-think")
    expect(first.output[0]).toMatchObject({ type: "reasoning", encrypted_content: encrypted, summary: [{ type: "summary_text", text: "Thinking about names." }] })
    expect(first.usage).toMatchObject({ input_tokens: 120, output_tokens: 40, input_tokens_details: { cached_tokens: 64 }, output_tokens_details: { reasoning_tokens: 32 } })

    upstream.reply({ kind: "json", status: 200, body: responsesBody([textMessage("msg_2", "Alice.")]) })
    await client.responses.create({ model: "o-think", previous_response_id: first.id, input: "What is my name?" })
    const second = sent(1)
    expect(second["previous_response_id"]).toBeUndefined()
    expect(second["input"].map((item: any) => item.type ?? "message")).toEqual(["message", "reasoning", "message", "message"])
    expect(second["input"][1]).toMatchObject({ type: "reasoning", encrypted_content: encrypted })
  })

  it("a native stream is forwarded event by event, renumbered, under the gateway's id and model", async () => {
    const thinking = [
      { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
      { type: "response.output_item.done", output_index: 0, item: reasoning("rs_1", "", encrypted) }
    ]
    upstream.reply({ kind: "sse", frames: responsesFrames(responsesTextEvents(["Hel", "lo"], { before: thinking, outputBefore: [reasoning("rs_1", "", encrypted)] })) })
    const res = await gw.postJson("/v1/responses", { model: "o-think", input: "hi", stream: true })
    const events = (await res.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\n")[1]!.slice(6)) as Record<string, any>)
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    for (const event of events) expect(validateStreamEvent(event)).toEqual([])
    const completed = events.at(-1)!
    expect(completed.type).toBe("response.completed")
    expect(completed.response).toMatchObject({ model: "o-think", usage: { input_tokens: 12, output_tokens: 3 } })
    expect(completed.response.id).toMatch(/^resp_/)
    expect(completed.response.id).toBe(events[0]!.response.id)
    expect(completed.response.output[0]).toMatchObject({ type: "reasoning", encrypted_content: encrypted })
    expect(sent(0)).toMatchObject({ stream: true, store: false })
    const stored = await client.responses.retrieve(completed.response.id)
    expect(stored.output_text).toBe("Hello")
  })
})
