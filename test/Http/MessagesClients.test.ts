import { beforeAll, describe, expect, it } from "@effect/vitest"
import Anthropic from "@anthropic-ai/sdk"
import { anthropicKit } from "../Providers/AnthropicKit.ts"
import { geminiKit } from "../Providers/GeminiKit.ts"
import { openAiKit } from "../Providers/OpenAiKit.ts"
import type { ProviderKit } from "../Providers/ProviderKit.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * The `@anthropic-ai/sdk` against `/v1/messages`, unchanged, on models served by each provider:
 * every upstream speaks its own wire format (the conformance battery's replies), the client
 * always reads Anthropic's.
 */
const providers = [
  { kit: anthropicKit, id: "anthropic", kind: "anthropic", base: "/v1" },
  { kit: openAiKit, id: "openai", kind: "openai", base: "/v1" },
  { kit: geminiKit, id: "gemini", kind: "gemini", base: "/v1beta" },
  { kit: openAiKit, id: "compat", kind: "openai-compatible", base: "/v1", profile: "vllm" }
] as const satisfies ReadonlyArray<{ kit: ProviderKit; id: string; kind: string; base: string; profile?: string }>

const answerSchema = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"], additionalProperties: false }

const capabilities = { vision: true, tools: true, structured_output: true, file_input: true, max_output_tokens: 1024 }

describe("the Anthropic SDK against /v1/messages", () => {
  const gw = useGateway({
    upstreams: ["anthropic", "openai", "gemini", "compat"],
    config: (up) => ({
      providers: providers.map((p) => ({
        id: p.id,
        kind: p.kind,
        base_url: `${up[p.id].url}${p.base}`,
        api_key: "upstream-key",
        ...("profile" in p ? { profile: p.profile } : {})
      })),
      models: providers.map((p) => ({
        id: `m-${p.id}`,
        kind: "chat",
        deployments: [{ provider: p.id, model: `up-${p.id}` }],
        capabilities,
        pricing: { input_per_mtok: 1, output_per_mtok: 2 }
      }))
    })
  })
  let client: Anthropic
  beforeAll(() => {
    client = new Anthropic({ apiKey: gw.key.secret, baseURL: gw.url, maxRetries: 0 })
  })

  describe.each(providers)("served by $id", ({ kit, id }) => {
    const model = `m-${id}`
    const upstream = () => gw.upstreams[id]

    it("messages.create: text, stop reason and the upstream's usage", async () => {
      upstream().reply(kit.text)
      const { data, response } = await client.messages
        .create({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
        .withResponse()
      expect(data.type).toBe("message")
      expect(data.id).toMatch(/^msg_/)
      expect(data.model).toBe(model)
      expect(data.content).toEqual([expect.objectContaining({ type: "text", text: "Hello there!" })])
      expect(data.stop_reason).toBe("end_turn")
      expect(data.usage).toMatchObject({ input_tokens: 19, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
      expect(response.headers.get("x-gateway-provider")).toBe(id)
    })

    it("messages.stream: Anthropic's event grammar, event by event", async () => {
      upstream().reply(kit.textStream)
      const stream = client.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      const types: Array<string> = []
      for await (const event of stream) if ((event.type as string) !== "ping") types.push(event.type === "content_block_delta" ? `${event.type}:${event.delta.type}` : event.type)
      const final = await stream.finalMessage()
      expect(types).toEqual([
        "message_start",
        "content_block_start",
        "content_block_delta:text_delta",
        "content_block_delta:text_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
      expect(final.content).toEqual([expect.objectContaining({ type: "text", text: "Hello" })])
      expect(final.stop_reason).toBe("end_turn")
      expect(final.model).toBe(model)
      expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 })
    })

    it("tools over two turns: tool_use, then the tool_result reaches the provider", async () => {
      upstream().reply(kit.toolCall)
      const tools = [{ name: "get_weather", description: "Weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }]
      const first = await client.messages.create({ model, max_tokens: 100, tools, messages: [{ role: "user", content: "weather in Paris?" }] })
      expect(first.stop_reason).toBe("tool_use")
      const call = first.content.find((b) => b.type === "tool_use")
      expect(call).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } })
      upstream().reply(kit.text)
      const second = await client.messages.create({
        model,
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "weather in Paris?" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: call!.type === "tool_use" ? call!.id : "", content: "sunny" }] }
        ]
      })
      expect(second.content).toEqual([expect.objectContaining({ type: "text", text: "Hello there!" })])
      expect(JSON.stringify(upstream().requests[1]!.body)).toContain("sunny")
    })

    it("images reach the provider in its own format", async () => {
      upstream().reply(kit.text)
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
      await client.messages.create({
        model,
        max_tokens: 100,
        messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }, { type: "text", text: "what is it?" }] }]
      })
      kit.assertImage(upstream().requests[0]!, png)
    })

    it("structured output: output_config.format through messages.parse reaches the provider as its own JSON schema setting", async () => {
      upstream().reply(kit.jsonSchema)
      const parsed = await client.messages.parse({
        model,
        max_tokens: 100,
        messages: [{ role: "user", content: "The answer?" }],
        output_config: { format: { type: "json_schema", schema: answerSchema } }
      })
      expect(parsed.parsed_output).toEqual({ answer: 42 })
      const sent = upstream().requests[0]!
      if (id === "anthropic" || id === "gemini") kit.assertJsonSchema(sent, answerSchema)
      else expect((sent.body as { response_format: unknown }).response_format).toMatchObject({ type: "json_schema", json_schema: { schema: answerSchema } })
    })

    it("countTokens: Anthropic's own count for a model served there, else the gateway's estimate", async () => {
      if (id === "anthropic") upstream().reply({ kind: "json", status: 200, body: { input_tokens: 2095 } })
      const { data, response } = await client.messages.countTokens({ model, messages: [{ role: "user", content: "hello there, how are you?" }] }).withResponse()
      if (id === "anthropic") {
        expect(data.input_tokens).toBe(2095)
        expect(upstream().requests[0]!.url).toBe("/v1/messages/count_tokens")
      } else {
        expect(data.input_tokens).toBeGreaterThan(0)
        expect(response.headers.get("x-gateway-token-count")).toBe("estimate")
        expect(upstream().requests).toHaveLength(0)
      }
    })

    it("cache reads and writes as Anthropic reports them: input_tokens excludes both", async () => {
      upstream().reply(kit.cachedUsage)
      const message = await client.messages.create({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      const written = kit.reportsCacheWrites ? 20 : 0
      expect(message.usage).toMatchObject({
        input_tokens: 100 - 60 - written,
        cache_read_input_tokens: 60,
        cache_creation_input_tokens: written,
        output_tokens: 5
      })
    })
  })

  it("x-api-key authenticates like a bearer key; a bad key is Anthropic's 401", async () => {
    const bad = new Anthropic({ apiKey: "sk-wrong", baseURL: gw.url, maxRetries: 0 })
    const error = await bad.messages.create({ model: "m-openai", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: "error",
      error: { type: "authentication_error" }
    })
  })

  it("a key without the chat scope is Anthropic's 403 permission_error", async () => {
    const key = await gw.createKey({ scopes: ["embeddings"] })
    const limited = new Anthropic({ apiKey: key.secret, baseURL: gw.url, maxRetries: 0 })
    const error = await limited.messages.create({ model: "m-openai", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError)
    expect((error as InstanceType<typeof Anthropic.PermissionDeniedError>).error).toMatchObject({ error: { type: "permission_error" } })
  })

  it("an unknown model is not_found_error; a missing max_tokens names the field", async () => {
    const missing = await client.messages.create({ model: "nope", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError)
    const res = await gw.postJson("/v1/messages", { model: "m-openai", messages: [{ role: "user", content: "hi" }] }, { headers: { "anthropic-version": "2023-06-01" } })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { type: string; error: { type: string; message: string } }
    expect(body.type).toBe("error")
    expect(body.error.type).toBe("invalid_request_error")
    expect(body.error.message).toContain("max_tokens")
  })

  it("anthropic-version is required, checked before the body is read", async () => {
    const missing = await gw.postJson("/v1/messages", { model: "m-openai", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: "anthropic-version: header is required" } })
    const bad = await gw.postJson("/v1/messages", "not even json", { headers: { "anthropic-version": "latest" } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("anthropic-version")
    expect(gw.upstreams.openai.requests).toHaveLength(0)
  })

  it("count_tokens answers input_tokens", async () => {
    const counted = await client.messages.countTokens({ model: "m-openai", messages: [{ role: "user", content: "hello there, how are you?" }] })
    expect(counted.input_tokens).toBeGreaterThan(0)
  })
})
