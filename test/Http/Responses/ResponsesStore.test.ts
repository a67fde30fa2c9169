import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { anthropicFrames, anthropicMessage, anthropicTextEvents } from "../../support/AnthropicFixtures.ts"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { useGateway } from "../../support/UseGateway.ts"

/** `store`, `previous_response_id`, `item_reference`, retrieve and delete: kept per project in the database. */
describe("Responses: stored responses", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "anthropic", kind: "anthropic", base_url: `${upstream.url}/v1`, api_key: "sk-ant-up" }],
      models: [{ id: "claude-r", kind: "chat", deployments: [{ provider: "anthropic", model: "claude-up" }], capabilities: { max_output_tokens: 512 } }],
      responses: { retention_days: 7 }
    })
  })
  const { upstream } = gw
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })
  const reply = (text: string) => upstream.reply({ kind: "json", status: 200, body: anthropicMessage({ content: [{ type: "text", text }] }) })
  const sent = (i: number) => upstream.requests[i]!.body as { system?: Array<{ text: string }>; messages: Array<{ role: string; content: Array<{ text?: string }> }> }

  it("retrieve gives the stored response; delete removes it; then it is not found", async () => {
    reply("Hi Alice.")
    const created = await client.responses.create({ model: "claude-r", input: "My name is Alice.", metadata: { ticket: "42" } })
    const retrieved = await client.responses.retrieve(created.id)
    expect(retrieved).toMatchObject({ id: created.id, status: "completed", model: "claude-r", metadata: { ticket: "42" }, output_text: "Hi Alice." })
    const deleted = await client.responses.delete(created.id).then(() => "deleted")
    expect(deleted).toBe("deleted")
    const raw = await fetch(`${gw.url}/v1/responses/${created.id}`, { headers: gw.auth() })
    expect(raw.status).toBe(404)
    expect(await raw.json()).toMatchObject({ error: { type: "not_found_error", message: `Response with id '${created.id}' not found.` } })
    await expect(client.responses.delete(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it("previous_response_id continues the conversation; the earlier instructions are not carried over", async () => {
    reply("Hi Alice.")
    const first = await client.responses.create({ model: "claude-r", instructions: "Be a pirate.", input: "My name is Alice." })
    reply("Your name is Alice.")
    const second = await client.responses.create({ model: "claude-r", instructions: "Be brief.", previous_response_id: first.id, input: "What is my name?" })
    expect(second.previous_response_id).toBe(first.id)
    expect(sent(1).system).toEqual([{ type: "text", text: "Be brief." }])
    expect(sent(1).messages.map((m) => [m.role, m.content.map((c) => c.text).join("")])).toEqual([
      ["user", "My name is Alice."],
      ["assistant", "Hi Alice."],
      ["user", "What is my name?"]
    ])
    reply("Still Alice.")
    await client.responses.create({ model: "claude-r", previous_response_id: second.id, input: "And now?" })
    expect(sent(2).messages).toHaveLength(5)
    expect(sent(2).system).toBeUndefined()
  })

  it("item_reference names an output item of a stored response", async () => {
    reply("Hi Alice.")
    const first = await client.responses.create({ model: "claude-r", input: "My name is Alice." })
    reply("Alice.")
    await client.responses.create({
      model: "claude-r",
      input: [{ role: "user", content: "My name is Alice." }, { type: "item_reference", id: first.output[0]!.id! }, { role: "user", content: "Name?" }]
    })
    expect(sent(1).messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    const missing = await gw.postJson("/v1/responses", { model: "claude-r", input: [{ type: "item_reference", id: "msg_nope" }] })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { param: "input[0].id" } })
  })

  it("another project's responses are not found; store: false keeps nothing", async () => {
    reply("Hi.")
    const mine = await client.responses.create({ model: "claude-r", input: "hello" })
    const other = await gw.createKey()
    const theirs = openAiClient(gw.url, other.secret)
    await expect(theirs.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
    await expect(theirs.responses.delete(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
    const continued = await gw.postJson("/v1/responses", { model: "claude-r", previous_response_id: mine.id, input: "more" }, other.secret)
    expect(continued.status).toBe(404)
    expect(await continued.json()).toMatchObject({ error: { param: "previous_response_id" } })
    expect(upstream.requests).toHaveLength(1)

    reply("Not kept.")
    const unkept = await client.responses.create({ model: "claude-r", input: "hello", store: false })
    expect((unkept as unknown as { store: boolean }).store).toBe(false)
    await expect(client.responses.retrieve(unkept.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it("a streamed response is stored once it completed", async () => {
    upstream.reply({ kind: "sse", frames: anthropicFrames(anthropicTextEvents(["Hel", "lo"])) })
    const final = await client.responses.stream({ model: "claude-r", input: "hi" }).finalResponse()
    const retrieved = await client.responses.retrieve(final.id)
    expect(retrieved).toMatchObject({ id: final.id, status: "completed", output_text: "Hello", usage: { input_tokens: 12 } })
  })
})
