import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { makeAnthropicProvider } from "../../../src/Providers/Anthropic/AnthropicAdapter.ts"
import { withFakeProvider } from "../../support/WithFakeProvider.ts"
import { expectedLines, goldenScenarios, replay, scenarioReply } from "./GoldenReplay.ts"

const required = [
  "plain-text",
  "tool-use",
  "parallel-tools",
  "empty-tool-arguments",
  "thinking",
  "duplicated-message-start",
  "ping-events",
  "error-mid-stream",
  "crlf-framing",
  "max-tokens",
  "refusal"
]

describe("Anthropic golden streams through the real adapter", () => {
  const fake = withFakeProvider((url) =>
    makeAnthropicProvider({
      id: "anthropic",
      kind: "anthropic",
      base_url: `${url}/v1`,
      api_key: Redacted.make("sk-ant-golden"),
      timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
    })
  )

  it("has every required scenario", () => {
    expect(goldenScenarios()).toEqual(expect.arrayContaining(required))
  })

  describe.each(goldenScenarios())("%s", (name) => {
    it("produces the expected client chunks", async () => {
      fake.upstream.reply(scenarioReply(name))
      expect(await fake.run(replay(fake.provider))).toEqual(expectedLines(name))
      const sent = fake.upstream.requests[0]!
      expect(sent.url).toBe("/v1/messages")
      expect(sent.headers["x-api-key"]).toBe("sk-ant-golden")
      expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
      expect((sent.body as Record<string, unknown>)["stream"]).toBe(true)
    })

    it("produces the same chunks when the bytes arrive in 7-byte reads", async () => {
      fake.upstream.reply(scenarioReply(name, 7))
      expect(await fake.run(replay(fake.provider))).toEqual(expectedLines(name))
    })
  })
})
