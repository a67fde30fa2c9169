import { describe, expect, it } from "@effect/vitest"
import type { ChatMessage } from "../../../src/Domain/ChatMessage.ts"
import { anthropicConversation } from "../../../src/Providers/Anthropic/AnthropicMessages.ts"

const ephemeral = { type: "ephemeral" }

describe("Anthropic prompt caching of a shared prefix", () => {
  const messages: ReadonlyArray<ChatMessage> = [
    { role: "system", content: "Review." },
    { role: "user", content: "<state>S</state>" },
    { role: "user", content: "Question?" }
  ]

  it("marks the last block of the prefix, even when the next message joins its turn", () => {
    expect(anthropicConversation(messages, 2)).toEqual({
      system: [{ type: "text", text: "Review." }],
      messages: [{ role: "user", content: [{ type: "text", text: "<state>S</state>", cache_control: ephemeral }, { type: "text", text: "Question?" }] }]
    })
  })

  it("marks the system block when the prefix ends there, and nothing without a prefix", () => {
    expect(anthropicConversation(messages, 1).system).toEqual([{ type: "text", text: "Review.", cache_control: ephemeral }])
    expect(JSON.stringify(anthropicConversation(messages))).not.toContain("cache_control")
  })
})
