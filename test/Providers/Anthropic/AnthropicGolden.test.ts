import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Exit, Layer, ManagedRuntime, Redacted, Scope } from "effect"
import type { ChatProvider } from "../../../src/Providers/ChatProvider.ts"
import { makeAnthropicProvider } from "../../../src/Providers/Anthropic/AnthropicAdapter.ts"
import { type FakeUpstream, startFakeUpstream } from "../../support/FakeUpstream.ts"
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
  let upstream: FakeUpstream
  let runtime: ManagedRuntime.ManagedRuntime<never, never>
  let scope: Scope.Closeable
  let provider: ChatProvider

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    runtime = ManagedRuntime.make(Layer.empty)
    scope = await runtime.runPromise(Scope.make())
    provider = await runtime.runPromise(
      makeAnthropicProvider({
        id: "anthropic",
        kind: "anthropic",
        base_url: `${upstream.url}/v1`,
        api_key: Redacted.make("sk-ant-golden"),
        timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
      }).pipe(Scope.provide(scope))
    )
  })
  afterAll(async () => {
    await runtime?.runPromise(Scope.close(scope, Exit.void))
    await runtime?.dispose()
    await upstream?.stop()
  })
  beforeEach(() => upstream.reset())

  it("has every required scenario", () => {
    expect(goldenScenarios()).toEqual(expect.arrayContaining(required))
  })

  describe.each(goldenScenarios())("%s", (name) => {
    it("produces the expected client chunks", async () => {
      upstream.reply(scenarioReply(name))
      expect(await runtime.runPromise(replay(provider))).toEqual(expectedLines(name))
      const sent = upstream.requests[0]!
      expect(sent.url).toBe("/v1/messages")
      expect(sent.headers["x-api-key"]).toBe("sk-ant-golden")
      expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
      expect((sent.body as Record<string, unknown>)["stream"]).toBe(true)
    })

    it("produces the same chunks when the bytes arrive in 7-byte reads", async () => {
      upstream.reply(scenarioReply(name, 7))
      expect(await runtime.runPromise(replay(provider))).toEqual(expectedLines(name))
    })
  })
})
