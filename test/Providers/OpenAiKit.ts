import { expect } from "@effect/vitest"
import { Redacted } from "effect"
import { sseFrame } from "../support/FakeUpstream.ts"
import { openAiChunk, openAiCompletion, openAiTextFrames, openAiToolFrames } from "../support/OpenAiFixtures.ts"
import type { ProviderKit } from "./ProviderKit.ts"

const body = (request: { body: unknown }) => request.body as Record<string, any>

export const openAiKit: ProviderKit = {
  name: "openai",
  config: (baseUrl) => ({
    id: "openai",
    kind: "openai",
    base_url: `${baseUrl}/v1`,
    api_key: Redacted.make("sk-upstream"),
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
  }),
  text: { kind: "json", status: 200, body: openAiCompletion() },
  textStream: {
    kind: "sse",
    frames: [
      ...openAiTextFrames(["Hel", "lo"], { usage: false }).slice(0, -1),
      sseFrame({ ...openAiChunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }),
      sseFrame("[DONE]")
    ]
  },
  toolCall: {
    kind: "json",
    status: 200,
    body: openAiCompletion({ content: null, toolCalls: [{ id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}" }] })
  },
  parallelToolStream: { kind: "sse", frames: openAiToolFrames() },
  jsonSchema: { kind: "json", status: 200, body: openAiCompletion({ content: "{\"answer\":42}" }) },
  reportsCacheWrites: true,
  cachedUsage: {
    kind: "json",
    status: 200,
    body: openAiCompletion({
      usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 20 } }
    })
  },
  rateLimited: {
    kind: "json",
    status: 429,
    headers: { "retry-after": "7" },
    body: { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }
  },
  serverError: {
    kind: "json",
    status: 500,
    body: { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } }
  },
  malformed: { kind: "raw", status: 200, body: "{\"id\": \"chatcmpl-1\", \"choices\": [" },
  badRequest: {
    kind: "json",
    status: 400,
    body: { error: { message: "bad things", type: "invalid_request_error", param: "messages", code: null } }
  },
  assertImage: (request, base64) => {
    const parts = body(request).messages[0].content as Array<any>
    expect(parts.find((p) => p.type === "image_url").image_url.url).toBe(`data:image/png;base64,${base64}`)
  },
  assertForcedTool: (request, name) => expect(body(request).tool_choice).toEqual({ type: "function", function: { name } }),
  assertNoTools: (request) => expect(body(request).tool_choice).toBe("none"),
  assertAnyTool: (request) => expect(body(request).tool_choice).toBe("required"),
  assertJsonSchema: (request, schema) =>
    expect(body(request).response_format).toEqual({ type: "json_schema", json_schema: { name: "answer", schema, strict: true } }),
  assertStreaming: (request) => expect(body(request).stream).toBe(true)
}
