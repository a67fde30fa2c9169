import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Exit, Stream } from "effect"
import { makeGeminiProvider } from "../../../src/Providers/Gemini/GeminiAdapter.ts"
import { withFakeProvider } from "../../support/WithFakeProvider.ts"
import { geminiKit } from "../GeminiKit.ts"
import { clientChunks, goldenDirOf, goldenScenariosIn, readJsonl, readLines, withStableIds } from "../GoldenStreams.ts"
import { chatRequest, exitError, target } from "./GeminiTestSupport.ts"

/**
 * Golden streams: each `test/fixtures/gemini/<scenario>.jsonl` holds the SSE payloads of one
 * documented `streamGenerateContent?alt=sse` answer, one per line. They are framed the way
 * Gemini frames them (CRLF), served by the fake upstream, read by the real adapter and
 * normalised with a fixed envelope; the client chunks must equal `<scenario>.expected.jsonl`.
 * A stream that fails ends that file with one `{"failure": ...}` line. Generated tool-call ids
 * are replaced by `call_#1`, `call_#2`, ... in order of appearance.
 * `UPDATE_GOLDEN=1` rewrites the expected files (review the diff before keeping it).
 */

const dir = goldenDirOf("gemini")
const scenarios = goldenScenariosIn(dir)
const envelope = { id: "svc_golden", created: 1_700_000_000, model: "gemini-golden" }
const tool = (name: string, properties: Record<string, unknown>) => ({ type: "function", function: { name, parameters: { type: "object", properties } } })
const request = chatRequest({
  messages: [{ role: "user", content: "hi" }],
  stream: true,
  stream_options: { include_usage: true },
  tools: [tool("get_weather", { city: { type: "string" }, unit: { type: "string" } }), tool("get_time", { tz: { type: "string" } }), tool("list_files", {})]
})

/** CRLF-framed SSE; the `crlf-framing` scenario is also cut between every CR and LF and inside characters. */
const reply = (scenario: string) => {
  const frames = readLines(NodePath.join(dir, `${scenario}.jsonl`)).map((line) => `data: ${line}\r\n\r\n`)
  if (scenario !== "crlf-framing") return { kind: "sse" as const, frames }
  const bytes = Buffer.from(frames.join(""), "utf8")
  const splits: Array<number> = []
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0d) splits.push(i + 1)
    if (bytes[i]! >= 0xc0) splits.push(i + 1)
  }
  return { kind: "sse" as const, frames, splits }
}

describe("Gemini golden streams", () => {
  const fake = withFakeProvider((url) => makeGeminiProvider(geminiKit.config(url)))

  it("has the documented scenarios", () => {
    expect(scenarios).toEqual(
      expect.arrayContaining([
        "plain-text",
        "function-call",
        "parallel-function-calls",
        "empty-args-function-call",
        "thoughts",
        "cumulative-usage",
        "error-mid-stream",
        "crlf-framing",
        "safety-stop",
        "blocked-prompt",
        "duplicated-finish",
        "truncated"
      ])
    )
  })

  it.each(scenarios)("%s", async (scenario) => {
    fake.upstream.reply(reply(scenario))
    const actual = withStableIds(await fake.run(clientChunks(fake.provider.stream(request, target({ tools: true, reasoning: true })), envelope)))
    const expectedPath = NodePath.join(dir, `${scenario}.expected.jsonl`)
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(expectedPath, actual.map((c) => JSON.stringify(c)).join("\n") + "\n")
    expect(actual).toEqual(readJsonl(expectedPath))
    expect(fake.upstream.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
  })

  it("posts the translated body to generateContent with the key header", async () => {
    fake.upstream.reply(geminiKit.text)
    const exit = await fake.exit(fake.provider.complete(chatRequest({ temperature: 0.5 }), target()))
    expect(Exit.isSuccess(exit)).toBe(true)
    const sent = fake.upstream.requests[0]!
    expect(sent.method).toBe("POST")
    expect(sent.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent")
    expect(sent.headers["x-goog-api-key"]).toBe("AIza-upstream")
    expect(sent.headers["authorization"]).toBeUndefined()
    expect(sent.body).toEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { temperature: 0.5 } })
  })

  it("fails a stream refused with 429 before any chunk, with the RetryInfo wait", async () => {
    fake.upstream.reply(geminiKit.rateLimited)
    const exit = await fake.exit(Stream.runCollect(fake.provider.stream(request, target())))
    const error = exitError(exit)
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "rate_limited", status: 429 })
    expect(error.retryAfterMs).toBe(7000)
  })

  it("refuses a request it cannot translate without calling the upstream", async () => {
    const exit = await fake.exit(fake.provider.complete(chatRequest({ logit_bias: { "1": 5 } }), target()))
    expect(exitError(exit).reason).toMatchObject({ _tag: "InvalidRequest", param: "logit_bias" })
    expect(fake.upstream.requests).toHaveLength(0)
  })
})

