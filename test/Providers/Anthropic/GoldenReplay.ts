import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { Effect, Exit, Stream } from "effect"
import type { GatewayError } from "../../../src/Domain/GatewayError.ts"
import type { ChatProvider } from "../../../src/Providers/ChatProvider.ts"
import { normalisedChunks } from "../../../src/Streams/ChatEventStream.ts"
import { type AnthropicEvent, anthropicFrames } from "../../support/AnthropicFixtures.ts"
import type { Reply } from "../../support/FakeUpstream.ts"
import { chatRequest, target } from "./AnthropicSupport.ts"

/**
 * Golden stream scenarios: `test/fixtures/anthropic/<scenario>.jsonl` holds one upstream SSE
 * event per line (`{"event": ..., "data": {...}}`), `<scenario>.expected.jsonl` the client
 * chunks the gateway must produce from it, and, when the stream must fail, a last line
 * `{"failure": {...}}` describing the error.
 */
export const goldenDir = NodePath.join(import.meta.dirname, "../../fixtures/anthropic")

export const goldenScenarios = (): Array<string> =>
  readdirSync(goldenDir)
    .filter((f) => f.endsWith(".jsonl") && !f.endsWith(".expected.jsonl"))
    .map((f) => f.slice(0, -".jsonl".length))
    .sort()

const readJsonl = (path: string): Array<unknown> =>
  readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as unknown)

export const scenarioEvents = (name: string) => readJsonl(NodePath.join(goldenDir, `${name}.jsonl`)) as Array<AnthropicEvent>
export const expectedLines = (name: string) => readJsonl(NodePath.join(goldenDir, `${name}.expected.jsonl`))

/** The upstream reply of a scenario: CRLF framing for `crlf-*` scenarios, optionally split every `splitEvery` bytes. */
export const scenarioReply = (name: string, splitEvery?: number): Reply => {
  const frames = anthropicFrames(scenarioEvents(name), name.startsWith("crlf") ? "\r\n" : "\n")
  if (splitEvery === undefined) return { kind: "sse", frames }
  const length = Buffer.byteLength(frames.join(""), "utf8")
  const splits = Array.from({ length: Math.floor(length / splitEvery) }, (_, i) => (i + 1) * splitEvery)
  return { kind: "sse", frames, splits }
}

const weather = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }
const time = { type: "function", function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } } }

const failureLine = (error: GatewayError) => ({
  failure: {
    reason: error.reason._tag,
    ...("kind" in error.reason ? { kind: error.reason.kind } : {}),
    retryable: error.isRetryable,
    message: error.reason.message
  }
})

/** Streams one request through the provider and the real chunk pipeline: every chunk, then the failure if any. */
export const replay = (provider: ChatProvider): Effect.Effect<Array<unknown>> =>
  Effect.gen(function* () {
    const lines: Array<unknown> = []
    const request = chatRequest({ tools: [weather, time], stream: true, stream_options: { include_usage: true } })
    const chunks = normalisedChunks(provider.stream(request, target()), { id: "svc_golden", created: 1767225600, model: "claude-test" }, true, {
      onServed: () => {},
      onUsage: () => {},
      onFirstChunk: () => {},
      onGenerated: () => {}
    })
    const exit = yield* Effect.exit(Stream.runForEach(chunks, (chunk) => Effect.sync(() => lines.push(chunk))))
    if (Exit.isSuccess(exit)) return lines
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (failure === undefined || failure._tag !== "Fail") return yield* Effect.die(exit.cause)
    return [...lines, failureLine(failure.error)]
  })
