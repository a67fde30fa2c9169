import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, ManagedRuntime, Redacted, Scope, Stream } from "effect"
import { MessagesStreamEncoder } from "../../src/Dialects/Messages/MessagesStream.ts"
import type { ChatRequest } from "../../src/Domain/ChatRequest.ts"
import type { ChatProvider } from "../../src/Providers/ChatProvider.ts"
import { makeAnthropicProvider } from "../../src/Providers/Anthropic/AnthropicAdapter.ts"
import { normalisedChunks } from "../../src/Streams/ChatEventStream.ts"
import { type FakeUpstream, startFakeUpstream } from "../support/FakeUpstream.ts"
import { grammarViolations, sseEvents as events } from "../support/MessagesGrammar.ts"
import { goldenScenarios, scenarioEvents, scenarioReply } from "../Providers/Anthropic/GoldenReplay.ts"
import { target } from "../Providers/Anthropic/AnthropicSupport.ts"

/**
 * Golden Messages streams: each Anthropic fixture (events in the API's documented shapes) is
 * served natively and must reach the client event for event as it came (only `message_start`'s
 * model becomes the catalogue id); and every stream the encoder writes, native or translated,
 * must follow Anthropic's grammar.
 */

const nativeRequest: ChatRequest = {
  model: "claude-test",
  messages: [{ role: "user", content: "hi" }],
  stream: true,
  includeUsage: true,
  n: 1,
  extra: {},
  native: { api: "anthropic-messages", body: { model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "hi" }] } }
}

describe("Messages golden streams", () => {
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

  /** The client's SSE text for one native stream, and whether it ended normally. */
  const served = (name: string) =>
    runtime.runPromise(
      Effect.gen(function* () {
        upstream.reply(scenarioReply(name))
        const encoder = new MessagesStreamEncoder({ id: "msg_golden", model: "claude-test" })
        let text = ""
        const chunks = normalisedChunks(provider.stream(nativeRequest, target()), { id: "x", created: 1, model: "claude-test" }, true)
        const exit = yield* Effect.exit(Stream.runForEach(chunks, (chunk) => Effect.sync(() => (text += encoder.push([chunk])))))
        return Exit.isSuccess(exit) ? { text: text + encoder.end(), ok: true } : { text, ok: false }
      })
    )

  const whole = goldenScenarios().filter((name) => {
    const list = scenarioEvents(name)
    return list.at(-1)?.event === "message_stop" && !list.some((e) => e.event === "error") && !name.startsWith("duplicated")
  })

  it.each(whole)("%s: served natively, the client gets the upstream's events as they came", async (name) => {
    const { text, ok } = await served(name)
    expect(ok).toBe(true)
    const got = events(text)
    const sent = scenarioEvents(name).map((e) => ({ event: e.event, data: e.data as Record<string, any> }))
    expect(got.map((e) => e.event)).toEqual(sent.map((e) => e.event))
    expect(got[0]!.data["message"]["model"]).toBe("claude-test")
    expect(got.slice(1)).toEqual(sent.slice(1))
    expect(grammarViolations(got)).toEqual([])
  })

  it("a stream that breaks after content ends with the upstream's events so far, then fails", async () => {
    const { ok, text } = await served("error-mid-stream")
    expect(ok).toBe(false)
    expect(events(text)[0]!.event).toBe("message_start")
  })

  it("the grammar check finds a block left open and a missing stop", () => {
    const broken = [
      { event: "message_start", data: { type: "message_start" } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0 } },
      { event: "message_delta", data: { type: "message_delta" } }
    ]
    expect(grammarViolations(broken)).toEqual(["message_delta with blocks open", "does not end with message_stop"])
  })
})
