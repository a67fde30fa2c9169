import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Stream } from "effect"
import { decodeChatRequest } from "../../src/Domain/ChatRequestDecoder.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import type { GatewayError } from "../../src/Domain/GatewayError.ts"
import type { ChatProvider, ChatTarget } from "../../src/Providers/ChatProvider.ts"
import { makeChatProvider } from "../../src/Services/Routing/ProviderRegistry.ts"
import { normalisedChunks } from "../../src/Streams/ChatEventStream.ts"
import { withFakeProvider } from "../support/WithFakeProvider.ts"
import { anthropicKit } from "./AnthropicKit.ts"
import { geminiKit } from "./GeminiKit.ts"
import { openAiKit } from "./OpenAiKit.ts"
import type { ProviderKit } from "./ProviderKit.ts"

/** Every adapter, OpenAI's included, must pass the same scenarios with the same client-visible results. */
export const kits: ReadonlyArray<ProviderKit> = [openAiKit, anthropicKit, geminiKit]

const model = Schema.decodeUnknownSync(ModelConfig)({
  id: "conformance-model",
  kind: "chat",
  deployments: [{ provider: "p", model: "up-model" }],
  capabilities: { vision: true, tools: true, structured_output: true, file_input: true, logprobs: true, max_output_tokens: 1024 }
})
const target: ChatTarget = { upstreamModel: "up-model", model }
const weatherTool = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }
const timeTool = { type: "function", function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } } }
const answerSchema = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"], additionalProperties: false }
const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

const request = (body: Record<string, unknown>) =>
  Effect.runSync(decodeChatRequest({ model: "conformance-model", messages: [{ role: "user", content: "hi" }], ...body }))

describe.each(kits)("provider conformance: $name", (kit) => {
  const fake = withFakeProvider((url) =>
    Effect.flatMap(makeChatProvider(kit.config(url)), (made): Effect.Effect<ChatProvider> =>
      made === undefined ? Effect.die(new Error(`no adapter for ${kit.name}`)) : Effect.succeed(made))
  )

  const complete = (body: Record<string, unknown>) => fake.exit(fake.provider.complete(request(body), target))
  const stream = (body: Record<string, unknown>) =>
    fake.run(
      Stream.runCollect(
        normalisedChunks(fake.provider.stream(request({ ...body, stream: true, stream_options: { include_usage: true } }), target), { id: "svc_x", created: 1, model: "conformance-model" }, true)
      )
    )
  const failure = (exit: Exit.Exit<unknown, GatewayError>) => {
    if (!Exit.isFailure(exit)) throw new Error("expected a failure")
    const error = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (error === undefined || error._tag !== "Fail") throw new Error("expected a typed failure")
    return error.error
  }

  it("text", async () => {
    fake.upstream.reply(kit.text)
    const exit = await complete({})
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    expect(exit.value.choices[0]!.message.content).toBe("Hello there!")
    expect(exit.value.choices[0]!.finish_reason).toBe("stop")
    expect(exit.value.usage).toMatchObject({ promptTokens: 19, completionTokens: 10 })
  })

  it("stream", async () => {
    fake.upstream.reply(kit.textStream)
    const chunks = await stream({})
    kit.assertStreaming(fake.upstream.requests[0]!)
    const choices = chunks.flatMap((c) => c.choices)
    expect(choices[0]).toEqual({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })
    expect(choices.map((c) => c.delta["content"]).filter((t) => t !== undefined && t !== "").join("")).toBe("Hello")
    expect(choices.at(-1)).toEqual({ index: 0, delta: {}, finish_reason: "stop" })
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 })
  })

  it("tools: auto", async () => {
    fake.upstream.reply(kit.toolCall)
    const exit = await complete({ tools: [weatherTool] })
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    const call = exit.value.choices[0]!.message.tool_calls![0]!
    expect(call.function.name).toBe("get_weather")
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" })
    expect(call.id).not.toBe("")
    expect(exit.value.choices[0]!.finish_reason).toBe("tool_calls")
  })

  it("tools: forced, none and required", async () => {
    fake.upstream.reply(kit.toolCall).reply(kit.text).reply(kit.toolCall)
    await complete({ tools: [weatherTool, timeTool], tool_choice: { type: "function", function: { name: "get_weather" } } })
    kit.assertForcedTool(fake.upstream.requests[0]!, "get_weather")
    await complete({ tools: [weatherTool], tool_choice: "none" })
    kit.assertNoTools(fake.upstream.requests[1]!)
    await complete({ tools: [weatherTool], tool_choice: "required" })
    kit.assertAnyTool(fake.upstream.requests[2]!)
  })

  it("tools: parallel, streamed", async () => {
    fake.upstream.reply(kit.parallelToolStream)
    const chunks = await stream({ tools: [weatherTool, timeTool] })
    const calls = chunks.flatMap((c) => c.choices.flatMap((ch) => (ch.delta["tool_calls"] as Array<any> | undefined) ?? []))
    const starts = calls.filter((c) => c.id !== undefined)
    expect(starts.map((c) => c.function.name)).toEqual(["get_weather", "get_time"])
    for (const start of starts) expect(start.function.arguments).toBe("")
    const args = (i: number) => calls.filter((c) => c.index === i).map((c) => c.function.arguments).join("")
    expect(JSON.parse(args(starts[0].index))).toEqual({ city: "Paris" })
    expect(JSON.parse(args(starts[1].index))).toEqual({ tz: "CET" })
    const finish = chunks.flatMap((c) => c.choices).filter((c) => c.finish_reason !== null)
    expect(finish.map((c) => c.finish_reason)).toEqual(["tool_calls"])
  })

  it("json_schema", async () => {
    fake.upstream.reply(kit.jsonSchema)
    const exit = await complete({ response_format: { type: "json_schema", json_schema: { name: "answer", schema: answerSchema, strict: true } } })
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    expect(JSON.parse(exit.value.choices[0]!.message.content!)).toEqual({ answer: 42 })
    kit.assertJsonSchema(fake.upstream.requests[0]!, answerSchema)
  })

  it("image input", async () => {
    fake.upstream.reply(kit.text)
    await complete({
      messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${pngBase64}` } }] }]
    })
    kit.assertImage(fake.upstream.requests[0]!, pngBase64)
  })

  it("usage with cache tokens", async () => {
    fake.upstream.reply(kit.cachedUsage)
    const exit = await complete({})
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    expect(exit.value.usage).toMatchObject({ promptTokens: 100, completionTokens: 5, cachedTokens: 60 })
    if (kit.reportsCacheWrites) expect(exit.value.usage.cacheWriteTokens).toBe(20)
    else expect(exit.value.usage.cacheWriteTokens).toBeUndefined()
  })

  it("429 with retry-after", async () => {
    fake.upstream.reply(kit.rateLimited)
    const error = failure(await complete({}))
    expect(error.reason._tag).toBe("UpstreamFailure")
    expect(error.isRetryable).toBe(true)
    expect(error.retryAfterMs).toBe(7000)
  })

  it("5xx", async () => {
    fake.upstream.reply(kit.serverError)
    const error = failure(await complete({}))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", status: 500 })
    expect(error.isRetryable).toBe(true)
  })

  it("malformed upstream JSON", async () => {
    fake.upstream.reply(kit.malformed)
    const error = failure(await complete({}))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "bad_response" })
  })

  it("400 is the client's mistake, in the provider's words", async () => {
    fake.upstream.reply(kit.badRequest)
    const error = failure(await complete({}))
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest" })
    expect(error.reason.message).toContain("bad things")
  })
})
