import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { decodeChatRequest } from "../../../src/Domain/ChatRequestDecoder.ts"
import { ModelConfig, type ProviderConfig } from "../../../src/Domain/GatewayConfig.ts"
import { makeOpenAiProvider } from "../../../src/Providers/OpenAi/OpenAiAdapter.ts"
import type { Reply } from "../../support/FakeUpstream.ts"
import { validateAgainst } from "../../support/OpenApiValidator.ts"
import { withFakeProvider } from "../../support/WithFakeProvider.ts"
import { clientChunks, goldenDirOf, goldenScenariosIn, readJsonl, readLines, withStableIds } from "../GoldenStreams.ts"

/**
 * Golden streams of OpenAI and the OpenAI-compatible servers: each `test/fixtures/openai/<scenario>.jsonl`
 * holds the payloads of one documented `/v1/chat/completions` stream, one `data:` frame per line
 * (a line starting with `:` is an SSE comment, written as it is). They are framed with LF (CRLF
 * for `crlf-*`), served by the fake upstream whole and again in 7-byte reads, read by the real
 * adapter with the profile of the server they come from, and normalised with a fixed envelope;
 * the client chunks must equal `<scenario>.expected.jsonl`, failure line included. Where each
 * stream comes from is in `test/fixtures/README.md`. `UPDATE_GOLDEN=1` rewrites the expected
 * files (review the diff before keeping it).
 */

const dir = goldenDirOf("openai")
const scenarios = goldenScenariosIn(dir)
const envelope = { id: "svc_golden", created: 1_767_225_600, model: "gpt-golden" }

/** The server each compatible scenario was documented for; the rest are OpenAI's own. */
const profileOf: Readonly<Record<string, string>> = {
  "reasoning-content": "deepseek",
  "usage-in-last-chunk": "mistral",
  "whole-tool-call": "ollama",
  "processing-comments": "generic"
}
/** Scenarios whose payloads are OpenAI's own chunks, so each must validate against OpenAI's description. */
const openAiOwn = (scenario: string) => profileOf[scenario] === undefined && scenario !== "azure-filter-results"

const config = (url: string, profile: string | undefined): ProviderConfig => ({
  id: profile ?? "openai",
  kind: profile === undefined ? "openai" : "openai-compatible",
  ...(profile === undefined ? {} : { profile }),
  base_url: `${url}/v1`,
  api_key: Redacted.make("sk-golden"),
  timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
})

const tool = (name: string, properties: Record<string, unknown>) => ({ type: "function", function: { name, parameters: { type: "object", properties } } })
const request = Effect.runSync(
  decodeChatRequest({
    model: "gpt-golden",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
    tools: [tool("get_current_weather", { location: { type: "string" } }), tool("get_weather", { location: { type: "string" } }), tool("list_files", {})]
  })
)
const target = {
  upstreamModel: "gpt-4o-mini",
  model: Schema.decodeUnknownSync(ModelConfig)({
    id: "gpt-golden",
    kind: "chat",
    deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
    capabilities: { tools: true, reasoning: true, logprobs: true }
  })
}

const payloads = (scenario: string) => readLines(NodePath.join(dir, `${scenario}.jsonl`))

/** The scenario's SSE bytes: `data:` frames (comments as they are), CRLF for `crlf-*`, cut as asked. */
const reply = (scenario: string, cut: "whole" | "7-byte reads"): Reply => {
  const end = scenario.startsWith("crlf") ? "\r\n" : "\n"
  const frames = payloads(scenario).map((line) => `${line.startsWith(":") ? line : `data: ${line}`}${end}${end}`)
  const bytes = Buffer.from(frames.join(""), "utf8")
  const splits: Array<number> = []
  if (cut === "7-byte reads") for (let at = 7; at < bytes.length; at += 7) splits.push(at)
  else if (scenario.startsWith("crlf")) {
    // Between every CR and its LF, and inside every multi-byte character.
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0d || bytes[i]! >= 0xc0) splits.push(i + 1)
  }
  return splits.length === 0 ? { kind: "sse", frames } : { kind: "sse", frames, splits }
}

describe("OpenAI golden streams through the real adapter", () => {
  const fake = withFakeProvider((url) =>
    Effect.all({
      openai: makeOpenAiProvider(config(url, undefined)),
      deepseek: makeOpenAiProvider(config(url, "deepseek")),
      mistral: makeOpenAiProvider(config(url, "mistral")),
      ollama: makeOpenAiProvider(config(url, "ollama")),
      generic: makeOpenAiProvider(config(url, "generic"))
    })
  )
  const adapterOf = (scenario: string) => fake.provider[(profileOf[scenario] ?? "openai") as keyof typeof fake.provider]
  const replay = (scenario: string) => fake.run(clientChunks(adapterOf(scenario).stream(request, target), envelope)).then(withStableIds)

  it("has the documented scenarios", () => {
    expect(scenarios).toEqual(
      expect.arrayContaining([
        "plain-text",
        "crlf-framing",
        "tool-call",
        "parallel-tool-calls",
        "empty-tool-arguments",
        "whole-tool-call",
        "refusal",
        "length",
        "content-filter",
        "logprobs",
        "multiple-choices",
        "cached-prompt",
        "reasoning-content",
        "usage-in-last-chunk",
        "azure-filter-results",
        "processing-comments",
        "error-mid-stream",
        "truncated"
      ])
    )
  })

  describe.each(scenarios)("%s", (scenario) => {
    const expectedPath = NodePath.join(dir, `${scenario}.expected.jsonl`)

    it("produces the expected client chunks", async () => {
      fake.upstream.reply(reply(scenario, "whole"))
      const actual = await replay(scenario)
      if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(expectedPath, actual.map((c) => JSON.stringify(c)).join("\n") + "\n")
      expect(actual).toEqual(readJsonl(expectedPath))
      const sent = fake.upstream.requests[0]!
      expect(sent.url).toBe("/v1/chat/completions")
      expect(sent.headers["authorization"]).toBe("Bearer sk-golden")
      expect(sent.headers["accept"]).toBe("text/event-stream")
      const body = sent.body as Record<string, unknown>
      expect(body["stream"]).toBe(true)
      // Every server but Mistral is asked for usage; Mistral sends it on its last chunk unasked.
      expect(body["stream_options"]).toEqual(profileOf[scenario] === "mistral" ? undefined : { include_usage: true })
    })

    it("produces the same chunks when the bytes arrive in 7-byte reads", async () => {
      fake.upstream.reply(reply(scenario, "7-byte reads"))
      expect(await replay(scenario)).toEqual(readJsonl(expectedPath))
    })

    it("sends the client only chunks that OpenAI's description allows", () => {
      for (const line of readJsonl(expectedPath)) {
        if (typeof line === "object" && line !== null && "failure" in line) continue
        expect(validateAgainst("CreateChatCompletionStreamResponse", line)).toEqual([])
      }
    })

    if (openAiOwn(scenario)) {
      it("is a stream OpenAI's description allows", () => {
        for (const line of payloads(scenario)) {
          if (line === "[DONE]") continue
          const payload = JSON.parse(line) as Record<string, unknown>
          if ("error" in payload) continue
          expect(validateAgainst("CreateChatCompletionStreamResponse", payload)).toEqual([])
        }
      })
    }
  })
})
