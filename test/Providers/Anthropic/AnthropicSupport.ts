import { Effect, Schema } from "effect"
import { decodeChatRequest } from "../../../src/Domain/ChatRequestDecoder.ts"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../../src/Domain/GatewayError.ts"
import type { ChatTarget } from "../../../src/Providers/ChatProvider.ts"
import { anthropicRequestBody } from "../../../src/Providers/Anthropic/AnthropicRequest.ts"

/** Shared helpers of the Anthropic codec tests: requests go through the real decoder first. */

export const target = (capabilities: Record<string, unknown> = {}): ChatTarget => ({
  upstreamModel: "claude-sonnet-4-5-20250929",
  model: Schema.decodeUnknownSync(ModelConfig)({
    id: "claude-test",
    kind: "chat",
    deployments: [{ provider: "anthropic", model: "claude-sonnet-4-5-20250929" }],
    capabilities: { vision: true, tools: true, structured_output: true, file_input: true, ...capabilities }
  })
})

export const chatRequest = (body: Record<string, unknown>) =>
  Effect.runSync(decodeChatRequest({ model: "claude-test", messages: [{ role: "user", content: "hi" }], ...body }))

export const wire = (body: Record<string, unknown>, capabilities?: Record<string, unknown>, stream = false) =>
  anthropicRequestBody(chatRequest(body), target(capabilities), stream) as Record<string, any>

/** The GatewayError a codec threw; fails the test when it returned instead. */
export const thrown = (f: () => unknown): GatewayError => {
  try {
    f()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error("expected a GatewayError")
}

export const rejection = (body: Record<string, unknown>, capabilities?: Record<string, unknown>) =>
  thrown(() => wire(body, capabilities))
