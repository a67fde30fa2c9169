import * as NodePath from "node:path"
import type { Effect } from "effect"
import type { ChatProvider } from "../../../src/Providers/ChatProvider.ts"
import { type AnthropicEvent, anthropicFrames } from "../../support/AnthropicFixtures.ts"
import type { Reply } from "../../support/FakeUpstream.ts"
import { clientChunks, goldenDirOf, goldenScenariosIn, readJsonl } from "../GoldenStreams.ts"
import { chatRequest, target } from "./AnthropicSupport.ts"

/**
 * Golden stream scenarios: `test/fixtures/anthropic/<scenario>.jsonl` holds one upstream SSE
 * event per line (`{"event": ..., "data": {...}}`), `<scenario>.expected.jsonl` the client
 * chunks the gateway must produce from it, and, when the stream must fail, a last line
 * `{"failure": {...}}` describing the error.
 */
export const goldenDir = goldenDirOf("anthropic")

export const goldenScenarios = (): Array<string> => goldenScenariosIn(goldenDir)

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

/** Streams one request through the provider and the real chunk pipeline: every chunk, then the failure if any. */
export const replay = (provider: ChatProvider): Effect.Effect<Array<unknown>> =>
  clientChunks(
    provider.stream(chatRequest({ tools: [weather, time], stream: true, stream_options: { include_usage: true } }), target()),
    { id: "svc_golden", created: 1767225600, model: "claude-test" }
  )
