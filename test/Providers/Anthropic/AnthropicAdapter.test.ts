import { describe, expect, it } from "@effect/vitest"
import { Exit, Redacted, Stream } from "effect"
import type { GatewayError } from "../../../src/Domain/GatewayError.ts"
import { makeAnthropicProvider } from "../../../src/Providers/Anthropic/AnthropicAdapter.ts"
import { anthropicErrorBody, anthropicMessage } from "../../support/AnthropicFixtures.ts"
import { withFakeProvider } from "../../support/WithFakeProvider.ts"
import { chatRequest, target } from "./AnthropicSupport.ts"

describe("Anthropic adapter over HTTP", () => {
  const fake = withFakeProvider((url) =>
    makeAnthropicProvider({
      id: "claude-direct",
      kind: "anthropic",
      base_url: `${url}/v1/`,
      api_key: Redacted.make("sk-ant-adapter"),
      headers: { "anthropic-beta": "context-1m-2025-08-07" },
      timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
    })
  )

  const failureOf = (exit: Exit.Exit<unknown, GatewayError>): GatewayError => {
    if (!Exit.isFailure(exit)) throw new Error("expected a failure")
    const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
    return reason.error
  }

  it("posts to {base_url}/messages with the key, the pinned version and the configured extra headers", async () => {
    fake.upstream.reply({ kind: "json", status: 200, body: anthropicMessage() })
    const exit = await fake.exit(fake.provider.complete(chatRequest({}), target()))
    expect(Exit.isSuccess(exit)).toBe(true)
    const sent = fake.upstream.requests[0]!
    expect(sent.method).toBe("POST")
    expect(sent.url).toBe("/v1/messages")
    expect(sent.headers["x-api-key"]).toBe("sk-ant-adapter")
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
    expect(sent.headers["anthropic-beta"]).toBe("context-1m-2025-08-07")
    expect(sent.headers["content-type"]).toContain("application/json")
    expect(sent.headers["authorization"]).toBeUndefined()
    expect((sent.body as Record<string, unknown>)["stream"]).toBeUndefined()
  })

  it("refuses a client mistake before calling Anthropic", async () => {
    const error = failureOf(await fake.exit(fake.provider.complete(chatRequest({ temperature: 1.2 }), target())))
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest", param: "temperature" })
    const streamed = failureOf(
      await fake.exit(Stream.runDrain(fake.provider.stream(chatRequest({ temperature: 1.2, stream: true }), target())))
    )
    expect(streamed.reason).toMatchObject({ _tag: "InvalidRequest", param: "temperature" })
    expect(fake.upstream.requests).toHaveLength(0)
  })

  it("fails a stream answered with 529 as a retryable overload before any event", async () => {
    fake.upstream.reply({ kind: "json", status: 529, body: anthropicErrorBody("overloaded_error", "Overloaded") })
    const error = failureOf(await fake.exit(Stream.runCollect(fake.provider.stream(chatRequest({ stream: true }), target()))))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "overloaded", status: 529, provider: "claude-direct" })
    expect(error.isRetryable).toBe(true)
  })

  it("reports a 200 body that is not a message as a bad response", async () => {
    fake.upstream.reply({ kind: "json", status: 200, body: { type: "completion", completion: "Hello" } })
    const error = failureOf(await fake.exit(fake.provider.complete(chatRequest({}), target())))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "bad_response" })
  })
})
