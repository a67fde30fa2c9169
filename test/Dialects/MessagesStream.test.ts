import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { MessagesStreamEncoder } from "../../src/Dialects/Messages/MessagesStream.ts"
import type { ChunkWire } from "../../src/Streams/ChunkNormaliser.ts"
import { grammarViolations, sseEvents } from "../support/MessagesGrammar.ts"

/**
 * Every golden stream of the providers (the normalised chunks the gateway makes of each
 * provider's recorded events, `test/fixtures/<provider>/*.expected.jsonl`) written as Anthropic's
 * events: the grammar holds, and the text, tool calls, stop reason and usage are the chunks' own.
 */
const fixtures = NodePath.resolve(import.meta.dirname, "../fixtures")
const goldens = ["gemini", "anthropic"].flatMap((provider) =>
  readdirSync(NodePath.join(fixtures, provider))
    .filter((f) => f.endsWith(".expected.jsonl"))
    .map((f) => `${provider}/${f.slice(0, -".expected.jsonl".length)}`)
)

const chunksOf = (name: string): Array<ChunkWire> =>
  readFileSync(NodePath.join(fixtures, `${name}.expected.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((c) => c["failure"] === undefined) as unknown as Array<ChunkWire>

const stopReasons: Record<string, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" }

describe("normalised provider streams as Anthropic events", () => {
  it("finds goldens of both providers", () => {
    expect(goldens.filter((g) => g.startsWith("gemini/")).length).toBeGreaterThan(5)
    expect(goldens.filter((g) => g.startsWith("anthropic/")).length).toBeGreaterThan(5)
  })

  it.each(goldens)("%s", (name) => {
    const chunks = chunksOf(name)
    const failed = readFileSync(NodePath.join(fixtures, `${name}.expected.jsonl`), "utf8").includes('"failure"')
    const encoder = new MessagesStreamEncoder({ id: "msg_x", model: "m" })
    const text = encoder.push(chunks) + (failed ? "" : encoder.end())
    const events = sseEvents(text)
    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta as Record<string, any>))
    const blocks = events.filter((e) => e.event === "content_block_delta").map((e) => e.data["delta"] as Record<string, string>)
    expect(blocks.filter((d) => d["type"] === "text_delta").map((d) => d["text"]).join("")).toBe(
      deltas.map((d) => (d["content"] ?? "") + (d["refusal"] ?? "")).join("")
    )
    expect(blocks.filter((d) => d["type"] === "thinking_delta").map((d) => d["thinking"]).join("")).toBe(
      deltas.map((d) => d["reasoning_content"] ?? "").join("")
    )
    const calls = deltas.flatMap((d) => (d["tool_calls"] ?? []) as Array<Record<string, any>>)
    const starts = events.filter((e) => e.event === "content_block_start" && e.data["content_block"]["type"] === "tool_use")
    expect(starts.map((e) => [e.data["content_block"]["id"], e.data["content_block"]["name"]])).toEqual(
      calls.filter((c) => c["id"] !== undefined).map((c) => [c["id"], c["function"]["name"]])
    )
    expect(blocks.filter((d) => d["type"] === "input_json_delta").map((d) => d["partial_json"]).join("")).toBe(
      calls.map((c) => c["function"]?.["arguments"] ?? "").join("")
    )
    if (failed) return
    expect(grammarViolations(events)).toEqual([])
    const finish = chunks.flatMap((c) => c.choices).map((c) => c.finish_reason).filter((r) => r !== null).at(-1)
    const delta = events.find((e) => e.event === "message_delta")!.data
    expect(delta["delta"]["stop_reason"]).toBe(stopReasons[finish ?? "stop"])
    const usage = chunks.at(-1)!.usage!
    expect(delta["usage"]["output_tokens"]).toBe(usage.completion_tokens)
    expect(delta["usage"]["input_tokens"] + delta["usage"]["cache_read_input_tokens"] + delta["usage"]["cache_creation_input_tokens"]).toBe(usage.prompt_tokens)
  })
})
