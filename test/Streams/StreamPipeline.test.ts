import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { initialOpenAiStreamState, openAiStreamStep } from "../../src/Providers/OpenAi/OpenAiStream.ts"
import { sseEvents } from "../../src/Providers/ProviderHttp.ts"
import { normalisedChunks } from "../../src/Streams/ChatEventStream.ts"
import { openAiChunk, openAiUsageChunk } from "../support/OpenAiFixtures.ts"

const Script = Schema.Struct({
  pieces: Schema.Array(Schema.String).check(Schema.isMaxLength(12)),
  tools: Schema.Array(
    Schema.Struct({
      name: Schema.String.check(Schema.isPattern(/^[a-z_]{1,12}$/)),
      args: Schema.Array(Schema.String).check(Schema.isMaxLength(5))
    })
  ).check(Schema.isMaxLength(3)),
  usage: Schema.Boolean,
  includeUsage: Schema.Boolean,
  crlf: Schema.Boolean,
  splits: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))).check(Schema.isMaxLength(40))
})
type Script = typeof Script.Type

/** The upstream bytes of a script, in OpenAI's wire format. */
const upstreamBytes = (script: Script): Uint8Array => {
  const sep = script.crlf ? "\r\n\r\n" : "\n\n"
  const frame = (v: unknown) => `data: ${typeof v === "string" ? v : JSON.stringify(v)}${sep}`
  const frames = [frame(openAiChunk({ role: "assistant", content: "" }))]
  for (const piece of script.pieces) frames.push(frame(openAiChunk({ content: piece })))
  script.tools.forEach((tool, index) => {
    frames.push(frame(openAiChunk({ tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: tool.name, arguments: "" } }] })))
    for (const arg of tool.args) frames.push(frame(openAiChunk({ tool_calls: [{ index, function: { arguments: arg } }] })))
  })
  frames.push(frame(openAiChunk({}, script.tools.length > 0 ? "tool_calls" : "stop")))
  if (script.usage) frames.push(frame(openAiUsageChunk()))
  frames.push(frame("[DONE]"))
  return new TextEncoder().encode(frames.join(""))
}

/** The same bytes cut into reads at arbitrary offsets, even inside a multi-byte character. */
const reads = (bytes: Uint8Array, splits: ReadonlyArray<number>): Array<Uint8Array> => {
  const cuts = [...new Set(splits.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let last = 0
  for (const cut of cuts) {
    if (cut > last) out.push(bytes.subarray(last, cut))
    last = Math.max(last, cut)
  }
  out.push(bytes.subarray(last))
  return out.filter((piece) => piece.length > 0)
}

const clientChunks = (script: Script) => {
  const state = initialOpenAiStreamState()
  const events = sseEvents("p", Stream.fromIterable(reads(upstreamBytes(script), script.splits))).pipe(
    Stream.map((event) => openAiStreamStep(state, event.data)),
    Stream.takeWhile((step) => step._tag !== "Done"),
    Stream.flatMap((step) => Stream.fromIterable(step._tag === "Events" ? step.events : []))
  )
  return Stream.runCollect(
    normalisedChunks(events, { id: "svc_1", created: 1, model: "m" }, script.includeUsage)
  )
}

describe("stream pipeline: upstream bytes -> SSE decode -> codec -> normaliser", () => {
  it.effect.prop("obeys 6.3/6.4 for any chunk sequence and any split of its bytes", [Script], ([script]) =>
    Effect.gen(function* () {
      const chunks = yield* clientChunks(script)
      expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["svc_1"]))
      const usageChunks = chunks.filter((c) => c.choices.length === 0)
      expect(usageChunks.length).toBe(script.includeUsage ? 1 : 0)
      if (script.includeUsage) expect(chunks.at(-1)!.usage).toBeDefined()
      const choices = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0]!)
      // 1: the role chunk first, with empty content.
      expect(choices[0]).toEqual({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })
      expect(choices.slice(1).some((c) => "role" in c.delta)).toBe(false)
      // 3: one finish chunk, last, with an empty delta.
      const finishes = choices.filter((c) => c.finish_reason !== null)
      expect(finishes).toHaveLength(1)
      expect(choices.at(-1)).toEqual({ index: 0, delta: {}, finish_reason: script.tools.length > 0 ? "tool_calls" : "stop" })
      // 2: content deltas carry only new text and concatenate to the message.
      const body = choices.slice(1, -1)
      expect(body.map((c) => (c.delta["content"] as string | undefined) ?? "").join("")).toBe(script.pieces.join(""))
      expect(body.every((c) => c.delta["content"] !== "")).toBe(true)
      // 6.4: first tool chunk has id, type, name and empty arguments; the rest only argument pieces.
      const calls = body.flatMap((c) => (c.delta["tool_calls"] as Array<Record<string, any>> | undefined) ?? [])
      script.tools.forEach((tool, index) => {
        const mine = calls.filter((call) => call["index"] === index)
        expect(mine[0]).toEqual({ index, id: `call_${index}`, type: "function", function: { name: tool.name, arguments: "" } })
        for (const later of mine.slice(1)) expect(Object.keys(later).sort()).toEqual(["function", "index"])
        expect(mine.map((call) => call["function"].arguments).join("")).toBe(tool.args.join(""))
      })
    })
  )
})
