import { expect } from "@effect/vitest"
import { Redacted } from "effect"
import {
  anthropicErrorBody,
  anthropicFrames,
  anthropicMessage,
  anthropicTextEvents,
  anthropicToolEvents,
  toolUse
} from "../support/AnthropicFixtures.ts"
import type { ProviderKit } from "./ProviderKit.ts"

const body = (request: { body: unknown }) => request.body as Record<string, any>

export const anthropicKit: ProviderKit = {
  name: "anthropic",
  config: (baseUrl) => ({
    id: "anthropic",
    kind: "anthropic",
    base_url: `${baseUrl}/v1`,
    api_key: Redacted.make("sk-ant-upstream"),
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
  }),
  text: { kind: "json", status: 200, body: anthropicMessage() },
  textStream: { kind: "sse", frames: anthropicFrames(anthropicTextEvents(["Hel", "lo"])) },
  toolCall: {
    kind: "json",
    status: 200,
    body: anthropicMessage({
      content: [{ type: "text", text: "I'll look that up." }, toolUse("toolu_01A09q90qw90lq917835lq9", "get_weather", { city: "Paris" })],
      stopReason: "tool_use"
    })
  },
  parallelToolStream: { kind: "sse", frames: anthropicFrames(anthropicToolEvents()) },
  jsonSchema: { kind: "json", status: 200, body: anthropicMessage({ content: [{ type: "text", text: "{\"answer\":42}" }] }) },
  reportsCacheWrites: true,
  cachedUsage: {
    kind: "json",
    status: 200,
    body: anthropicMessage({ usage: { input_tokens: 20, cache_read_input_tokens: 60, cache_creation_input_tokens: 20, output_tokens: 5 } })
  },
  rateLimited: {
    kind: "json",
    status: 429,
    headers: { "retry-after": "7" },
    body: anthropicErrorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
  },
  serverError: { kind: "json", status: 500, body: anthropicErrorBody("api_error", "Internal server error") },
  malformed: { kind: "raw", status: 200, body: "{\"id\": \"msg_1\", \"type\": \"message\", \"content\": [" },
  badRequest: { kind: "json", status: 400, body: anthropicErrorBody("invalid_request_error", "bad things") },
  assertImage: (request, base64) => {
    const blocks = body(request).messages[0].content as Array<any>
    expect(blocks.find((b) => b.type === "image").source).toEqual({ type: "base64", media_type: "image/png", data: base64 })
  },
  assertForcedTool: (request, name) => expect(body(request).tool_choice).toEqual({ type: "tool", name }),
  assertNoTools: (request) => expect(body(request).tool_choice).toEqual({ type: "none" }),
  assertAnyTool: (request) => expect(body(request).tool_choice).toEqual({ type: "any" }),
  assertJsonSchema: (request, schema) => expect(body(request).output_config).toEqual({ format: { type: "json_schema", schema } }),
  assertStreaming: (request) => {
    expect(request.url).toBe("/v1/messages")
    expect(body(request).stream).toBe(true)
  }
}
