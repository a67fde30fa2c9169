import { beforeAll, describe, expect, it } from "@effect/vitest"
import Anthropic from "@anthropic-ai/sdk"
import { anthropicFrames, anthropicMessage, anthropicThinkingEvents } from "../support/AnthropicFixtures.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * On an `anthropic` provider a Messages request is passed natively: the upstream gets the
 * client's body (model aside), the client gets Anthropic's answer and events as they came, so
 * thinking signatures, cache control and stop sequences survive; usage and billing are read
 * from the same answer. With a fallback to another provider, that route is translated.
 */
describe("native Messages passthrough to Anthropic", () => {
  const gw = useGateway({
    upstreams: ["anthropic", "openai"],
    config: (up) => ({
      providers: [
        { id: "anthropic", kind: "anthropic", base_url: `${up.anthropic.url}/v1`, api_key: "sk-ant-up" },
        { id: "openai", kind: "openai", base_url: `${up.openai.url}/v1`, api_key: "sk-up" }
      ],
      routing: { max_attempts: 2, attempts_per_model: 1, base_backoff_ms: 1, max_backoff_ms: 1, failure_threshold: 100 },
      models: [
        {
          id: "claude",
          kind: "chat",
          deployments: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
          fallbacks: ["gpt"],
          capabilities: { tools: true, vision: true, reasoning: true },
          pricing: { input_per_mtok: 3, output_per_mtok: 15 }
        },
        { id: "gpt", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o" }], capabilities: { tools: true, vision: true } }
      ]
    })
  })
  const { anthropic, openai } = gw.upstreams
  let client: Anthropic
  beforeAll(() => {
    client = new Anthropic({ apiKey: gw.key.secret, baseURL: gw.url, maxRetries: 0, defaultHeaders: { "anthropic-beta": "context-1m-2025-08-07" } })
  })

  it("the upstream gets the client's body as sent (cache_control, thinking), only the model set", async () => {
    anthropic.reply({ kind: "json", status: 200, body: anthropicMessage({ stopReason: "stop_sequence" }) })
    const body = {
      model: "claude",
      max_tokens: 2048,
      system: [{ type: "text" as const, text: "Be brief.", cache_control: { type: "ephemeral" as const } }],
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      stop_sequences: ["###"],
      messages: [{ role: "user" as const, content: "hi" }]
    }
    const { data, response } = await client.messages.create(body).withResponse()
    const sent = anthropic.requests[0]!
    expect(sent.body).toEqual({ ...body, model: "claude-sonnet-4-5", stream: false })
    expect(sent.headers["anthropic-beta"]).toBe("context-1m-2025-08-07")
    expect(data.model).toBe("claude")
    expect(data.id).toBe("msg_01XFDUDYJgAACzvnptvVoYEL")
    expect(data.stop_reason).toBe("stop_sequence")
    expect(response.headers.get("x-gateway-translation")).toBeNull()
  })

  it("a stream passes Anthropic's events through, thinking signatures included, and bills its usage", async () => {
    anthropic.reply({
      kind: "sse",
      frames: anthropicFrames(
        anthropicThinkingEvents({
          thinking: ["Let me think."],
          text: "Hi!",
          startUsage: { input_tokens: 30, cache_read_input_tokens: 10, output_tokens: 1 },
          endUsage: { output_tokens: 12 }
        })
      )
    })
    const stream = client.messages.stream({
      model: "claude",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "hi" }]
    })
    const final = await stream.finalMessage()
    expect(final.model).toBe("claude")
    expect(final.content[0]).toMatchObject({ type: "thinking", thinking: "Let me think.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" })
    expect(final.content[1]).toMatchObject({ type: "text", text: "Hi!" })
    expect(final.usage).toMatchObject({ input_tokens: 30, cache_read_input_tokens: 10, output_tokens: 12 })
    expect((anthropic.requests[0]!.body as { stream: boolean }).stream).toBe(true)
  })

  it("a fallback to another provider before any content is translated, and the client sees one message", async () => {
    anthropic.reply({ kind: "json", status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } })
    openai.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const { data, response } = await client.messages
      .create({ model: "claude", max_tokens: 100, top_k: 5, messages: [{ role: "user", content: "hi" }] } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse()
    expect(data.model).toBe("gpt")
    expect(data.content).toEqual([expect.objectContaining({ type: "text", text: "Hello there!" })])
    expect(response.headers.get("x-gateway-provider")).toBe("openai")
    expect(response.headers.get("x-gateway-translation")).toBe("dropped=top_k; rewritten=max_tokens->max_completion_tokens")
    expect(openai.requests[0]!.body).toMatchObject({ model: "gpt-4o", max_completion_tokens: 100 })
  })

  it("strict mode never takes a fallback that would drop a field: the native route's error is the answer", async () => {
    anthropic.reply({ kind: "json", status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } })
    const res = await gw.postJson(
      "/v1/messages",
      { model: "claude", max_tokens: 100, top_k: 5, messages: [{ role: "user", content: "hi" }] },
      { headers: { "anthropic-version": "2023-06-01", "x-gateway-strict": "true" } }
    )
    expect(res.status).toBe(529)
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("overloaded_error")
    expect(openai.requests).toHaveLength(0)
  })

  it("count_tokens asks Anthropic for a model deployed there, with the body minus the generation fields", async () => {
    anthropic.reply({ kind: "json", status: 200, body: { input_tokens: 2095 } })
    const counted = await client.messages.countTokens({
      model: "claude",
      system: "Be brief.",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: {} } }]
    })
    expect(counted.input_tokens).toBe(2095)
    const sent = anthropic.requests[0]!
    expect(sent.url).toBe("/v1/messages/count_tokens")
    expect(sent.body).toEqual({
      model: "claude-sonnet-4-5",
      system: "Be brief.",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: {} } }]
    })
  })

  it("count_tokens for a model with no Anthropic deployment is the gateway's estimate, marked so", async () => {
    const res = await gw.postJson("/v1/messages/count_tokens", { model: "gpt", messages: [{ role: "user", content: "hello there" }] }, {
      headers: { "anthropic-version": "2023-06-01" }
    })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-gateway-token-count")).toBe("estimate")
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0)
    expect(openai.requests).toHaveLength(0)
  })
})
