import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { toFile } from "openai"
import { ProjectView } from "../../src/Domain/ApiKey.ts"
import { CreatedKey } from "../../src/Http/Admin/AdminSchemas.ts"
import { ProjectOverview, RequestLogList } from "../../src/Http/Admin/OperationsSchemas.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { adminCall, expectBody } from "../support/AdminClient.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

const token = "admin-mock-provider-0123456789abcdef"

/**
 * `kind: mock` through the real server: every chat dialect, streams, embeddings and a chat about
 * an uploaded file, answered in-process and billed, logged and summarised like any provider.
 */
describe("the mock provider through the HTTP server", () => {
  const gw = useGateway({
    adminToken: token,
    key: false,
    config: {
      providers: [{ id: "mock", kind: "mock" }],
      models: [
        {
          id: "mock-chat",
          kind: "chat",
          deployments: [{ provider: "mock", model: "mock-chat" }],
          capabilities: { vision: true, file_input: true },
          pricing: { input_per_mtok: 1, output_per_mtok: 2 }
        },
        { id: "mock-embed", kind: "embedding", deployments: [{ provider: "mock", model: "mock-embed" }], capabilities: { dimensions: 16, matryoshka: true } }
      ]
    }
  })
  const call = adminCall(() => gw.url, token)
  const flush = () => gw.runtime.runPromise(Effect.gen(function* () {
    yield* (yield* UsageLedger).flush
  }))
  const setUp = async () => {
    const project = expectBody(ProjectView, await call("POST", "/admin/projects", { body: { name: "mock" } }))
    const user = await call("POST", `/admin/projects/${project.id}/users`, { body: { name: "tester" } })
    expect(user.status).toBe(200)
    const userId = (user.body as { readonly id: string }).id
    const created = expectBody(CreatedKey, await call("POST", `/admin/projects/${project.id}/keys`, { body: { name: "try", user_id: userId } }))
    return { projectId: project.id, secret: created.secret }
  }

  it("answers chat completions, plain and streamed, with usage, and shows in the request log and overview at a cost", async () => {
    const { projectId, secret } = await setUp()
    const client = openAiClient(gw.url, secret)
    const completion = await client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "Hello gateway" }] })
    expect(completion.choices[0]?.message.content).toBe("mock reply to: Hello gateway")
    expect(completion.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 5, total_tokens: 13 })

    const stream = await client.chat.completions.create({
      model: "mock-chat",
      messages: [{ role: "user", content: "Stream it" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let usage: unknown
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe("mock reply to: Stream it")
    expect(usage).toMatchObject({ completion_tokens: 5 })

    // A stream's usage row is written when the server has finished it, which may be after the client read the end.
    const requests = async () => {
      await flush()
      return expectBody(RequestLogList, await call("GET", `/admin/projects/${projectId}/requests`))
    }
    let log = await requests()
    for (let i = 0; i < 100 && log.data.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      log = await requests()
    }
    expect(log.data.map((r) => [r.provider, r.model, r.status, r.streamed])).toEqual([["mock", "mock-chat", 200, true], ["mock", "mock-chat", 200, false]])
    expect(log.data[1]).toMatchObject({ prompt_tokens: 8, completion_tokens: 5, cost_nano_usd: "18000" })
    const overview = expectBody(ProjectOverview, await call("GET", `/admin/projects/${projectId}/overview`))
    expect(overview.today.requests).toBe(2)
    expect(overview.top_models.map((m) => m.model)).toEqual(["mock-chat"])
    expect(overview.today.cost_usd).toBeGreaterThan(0)
  })

  it("chats about an uploaded file, saying how much of its text it received", async () => {
    const { secret } = await setUp()
    const client = openAiClient(gw.url, secret)
    const body = "The two commands are npm start and npm test.\n".repeat(10)
    const file = await client.files.create({ file: await toFile(Buffer.from(body), "notes.txt", { type: "text/plain" }), purpose: "user_data" })
    const completion = await client.chat.completions.create({
      model: "mock-chat",
      messages: [{ role: "user", content: [{ type: "text", text: "What are the commands?" }, { type: "file", file: { file_id: file.id } }] }]
    })
    expect(completion.choices[0]?.message.content).toBe(`mock reply to: What are the commands? (received 1 document with ${body.length} characters of text)`)
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(body.length / 4)
  })

  it("answers the Messages and Responses dialects and embeddings", async () => {
    const { secret } = await setUp()
    const anthropic = new Anthropic({ apiKey: secret, baseURL: gw.url, maxRetries: 0 })
    const message = await anthropic.messages.create({ model: "mock-chat", max_tokens: 64, messages: [{ role: "user", content: "Hi Messages" }] })
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "mock reply to: Hi Messages" })])
    expect(message.usage.output_tokens).toBe(5)

    const streamed = await anthropic.messages.stream({ model: "mock-chat", max_tokens: 64, messages: [{ role: "user", content: "Stream Messages" }] }).finalMessage()
    expect(streamed.content).toEqual([expect.objectContaining({ type: "text", text: "mock reply to: Stream Messages" })])
    expect(streamed.usage.output_tokens).toBe(5)

    const client = openAiClient(gw.url, secret)
    const response = await client.responses.create({ model: "mock-chat", input: "Hi Responses" })
    expect(response.output_text).toBe("mock reply to: Hi Responses")
    let deltas = ""
    let completedTokens: number | undefined
    for await (const event of await client.responses.create({ model: "mock-chat", input: "Stream Responses", stream: true })) {
      if (event.type === "response.output_text.delta") deltas += event.delta
      if (event.type === "response.completed") completedTokens = event.response.usage?.output_tokens
    }
    expect(deltas).toBe("mock reply to: Stream Responses")
    expect(completedTokens).toBe(5)

    const embeddings = await client.embeddings.create({ model: "mock-embed", input: ["a", "b", "a"], dimensions: 4 })
    const [a, b, again] = embeddings.data.map((d) => d.embedding)
    expect(a).toHaveLength(4)
    expect(again).toEqual(a)
    expect(b).not.toEqual(a)
    expect(embeddings.usage.prompt_tokens).toBe(3)
  })
})
