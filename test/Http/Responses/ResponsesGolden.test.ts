import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { scenarioReply } from "../../Providers/Anthropic/GoldenReplay.ts"
import { goldenDirOf, goldenScenariosIn, readJsonl, readLines } from "../../Providers/GoldenStreams.ts"
import type { Reply } from "../../support/FakeUpstream.ts"
import { responsesConfig, type ResponsesUpstream, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { useGateway } from "../../support/UseGateway.ts"

/**
 * Golden streams through `/v1/responses`: every recorded provider stream of test/fixtures
 * (Anthropic's, Gemini's and OpenAI's chat-completions streams, the latter served by an
 * OpenAI-compatible profile) is served to the gateway, and the Responses stream the client reads
 * must validate event by event against both published documents and say what the stream's
 * golden client chunks (`<scenario>.expected.jsonl`) say: the text, refusal, reasoning, function
 * calls, status, usage, or the failure.
 */

interface Golden {
  readonly dir: string
  readonly upstream: ResponsesUpstream
  readonly model: string
  readonly reply: (scenario: string) => Reply
}

const lines = (dir: string, scenario: string) => readLines(NodePath.join(goldenDirOf(dir), `${scenario}.jsonl`))
const goldens: ReadonlyArray<Golden> = [
  { dir: "anthropic", upstream: "anthropic", model: "claude-r", reply: (s) => scenarioReply(s) },
  { dir: "gemini", upstream: "gemini", model: "gemini-r", reply: (s) => ({ kind: "sse", frames: lines("gemini", s).map((line) => `data: ${line}\r\n\r\n`) }) },
  {
    dir: "openai",
    upstream: "groq",
    model: "groq-r",
    reply: (s) => {
      const end = s.startsWith("crlf") ? "\r\n" : "\n"
      return { kind: "sse", frames: lines("openai", s).map((line) => `${line.startsWith(":") ? line : `data: ${line}`}${end}${end}`) }
    }
  }
]

/** What the golden client chunks of a scenario add up to (choice 0). */
const expectedOf = (dir: string, scenario: string) => {
  let text = ""
  let refusal = ""
  let reasoning = ""
  let finish: string | undefined
  let usage: Record<string, any> | undefined
  let failure: Record<string, any> | undefined
  const calls = new Map<number, { name: string; arguments: string }>()
  for (const line of readJsonl(NodePath.join(goldenDirOf(dir), `${scenario}.expected.jsonl`)) as Array<Record<string, any>>) {
    if (line["failure"] !== undefined) failure = line["failure"]
    if (line["usage"] != null) usage = line["usage"]
    for (const choice of (line["choices"] ?? []) as Array<Record<string, any>>) {
      if (choice["index"] !== 0) continue
      const delta = choice["delta"] ?? {}
      text += delta["content"] ?? ""
      refusal += delta["refusal"] ?? ""
      reasoning += delta["reasoning_content"] ?? ""
      for (const call of (delta["tool_calls"] ?? []) as Array<Record<string, any>>) {
        const known = calls.get(call["index"]) ?? { name: "", arguments: "" }
        calls.set(call["index"], { name: known.name + (call["function"]?.["name"] ?? ""), arguments: known.arguments + (call["function"]?.["arguments"] ?? "") })
      }
      if (choice["finish_reason"] != null) finish = choice["finish_reason"]
    }
  }
  return { text, refusal, reasoning, finish, usage, failure, calls: [...calls.values()] }
}

const tools = [
  { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  { type: "function", name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } }
]

describe("Responses golden streams from every provider", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })

  describe.each(goldens)("$dir", (golden) => {
    // Several choices are a chat-completions feature; a Responses request asks for one.
    const scenarios = goldenScenariosIn(goldenDirOf(golden.dir)).filter((s) => s !== "multiple-choices")
    it("has scenarios", () => expect(scenarios.length).toBeGreaterThan(5))

    it.each(scenarios)("%s", async (scenario) => {
      gw.upstreams[golden.upstream].reply(golden.reply(scenario))
      const res = await gw.postJson("/v1/responses", { model: golden.model, input: "hi", tools, stream: true })
      const expected = expectedOf(golden.dir, scenario)
      if (expected.failure !== undefined && expected.text === "" && expected.calls.length === 0 && expected.reasoning === "" && expected.refusal === "") {
        // Failed before anything was sent: a plain HTTP error in the API's shape.
        if (res.status !== 200) {
          expect(res.status).toBeGreaterThanOrEqual(400)
          expect(((await res.json()) as { error: { type: string } }).error.type).toBeTypeOf("string")
          return
        }
      }
      expect(res.status).toBe(200)
      const events = (await res.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\n")[1]!.slice(6)) as Record<string, any>)
      for (const event of events) expect(validateStreamEvent(event), JSON.stringify(event)).toEqual([])
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
      const last = events.at(-1)!
      if (expected.failure !== undefined) {
        expect(events.at(-2)!.type).toBe("error")
        expect(last.type).toBe("response.failed")
      } else {
        expect(last.type).toBe(expected.finish === "length" || expected.finish === "content_filter" ? "response.incomplete" : "response.completed")
      }
      const output = last.response.output as Array<Record<string, any>>
      const parts = output.filter((item) => item.type === "message").flatMap((item) => item.content as Array<Record<string, any>>)
      expect(parts.filter((p) => p.type === "output_text").map((p) => p.text).join("")).toBe(expected.text)
      expect(parts.filter((p) => p.type === "refusal").map((p) => p.refusal).join("")).toBe(expected.refusal)
      const summaries = output.filter((item) => item.type === "reasoning").flatMap((item) => item.summary as Array<{ text: string }>)
      expect(summaries.map((s) => s.text).join("")).toBe(expected.reasoning)
      const calls = output.filter((item) => item.type === "function_call").map((item) => ({ name: item.name, arguments: item.arguments }))
      expect(calls).toEqual(expected.calls)
      if (expected.failure === undefined && expected.usage !== undefined) {
        expect(last.response.usage).toMatchObject({ input_tokens: expected.usage["prompt_tokens"], output_tokens: expected.usage["completion_tokens"] })
      }
    })
  })
})
