import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Sse from "effect/encoding/Sse"
import { makeSseDecoder, type SseFeedResult } from "../../src/Providers/SseDecoder.ts"

/** What a parser made of a sequence of pieces: events and signals, per feed. */
const viaDecoder = (pieces: ReadonlyArray<string>, maxEventSize?: number) => {
  const decoder = makeSseDecoder(maxEventSize)
  return pieces.map((piece) => {
    const events: Array<Sse.Event> = []
    const result = decoder.feed(piece, events)
    return { events, result }
  })
}

const viaEffect = (pieces: ReadonlyArray<string>, maxEventSize?: number) => {
  let events: Array<Sse.Event> = []
  let retry = false
  const parser = Sse.makeParser((event) => {
    if (event._tag === "Retry") retry = true
    else events.push(event)
  }, maxEventSize === undefined ? undefined : { maxEventSize })
  return pieces.map((piece) => {
    events = []
    retry = false
    const error = parser.feed(piece)
    const result: SseFeedResult = error !== undefined ? "too-large" : retry ? "retry" : "ok"
    return { events, result }
  })
}

// Lines from the grammar's corners: every field, comments, unknown fields, no colon, no space
// after the colon, a NUL in an id, non-digit retry values, astral characters; any line end.
const Line = Schema.Struct({
  field: Schema.Literals(["data", "event", "id", "retry", "", "dat", "data ", "x"]),
  colon: Schema.Literals(["", ":", ": ", ":  "]),
  value: Schema.Literals(["", "1", "x y", "{\"a\":1}", "id\u0000", "42", "4x", ":", "é😀", " lead"]),
  end: Schema.Literals(["\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\r\r"])
})
const Script = Schema.Struct({
  bom: Schema.Boolean,
  lines: Schema.Array(Line).check(Schema.isMaxLength(30)),
  splits: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))).check(Schema.isMaxLength(12))
})

const text = (script: typeof Script.Type) =>
  (script.bom ? "\uFEFF" : "") + script.lines.map((l) => `${l.field}${l.colon}${l.colon === "" ? "" : l.value}${l.end}`).join("")

/** The text cut at arbitrary places, some pieces empty. */
const cut = (whole: string, splits: ReadonlyArray<number>): Array<string> => {
  const points = splits.map((s) => s % (whole.length + 1)).sort((a, b) => a - b)
  const pieces: Array<string> = []
  let last = 0
  for (const point of points) {
    pieces.push(whole.slice(last, point))
    last = point
  }
  pieces.push(whole.slice(last))
  return pieces
}

describe("SseDecoder", () => {
  it.effect.prop("yields what Effect's SSE parser yields, for any event stream cut anywhere", [Script], ([script]) =>
    Effect.sync(() => {
      const pieces = cut(text(script), script.splits)
      expect(viaDecoder(pieces)).toEqual(viaEffect(pieces))
    }))

  // Up to and including the feed that finds an event too large: the stream ends there.
  it.effect.prop("and the same up to an event past the size limit", [Script], ([script]) =>
    Effect.sync(() => {
      const pieces = cut(text(script), script.splits)
      const expected = viaEffect(pieces, 12)
      const tooLarge = expected.findIndex((feed) => feed.result === "too-large")
      const fed = tooLarge === -1 ? pieces : pieces.slice(0, tooLarge + 1)
      expect(viaDecoder(fed, 12)).toEqual(expected.slice(0, fed.length))
    }))

  it("reads an OpenAI-style stream: one event per frame, data as sent", () => {
    const frames = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n'
    const [first] = viaDecoder([frames])
    expect(first!.result).toBe("ok")
    expect(first!.events.map((e) => e.data)).toEqual(['{"a":1}', '{"b":2}', "[DONE]"])
  })

  it("joins multi-line data with newlines and keeps the event name and last id", () => {
    const [first] = viaDecoder(["id: 7\nevent: message_delta\ndata: a\ndata:b\n\nevent: ping\n\n"])
    expect(first!.events).toEqual([{ _tag: "Event", id: "7", event: "message_delta", data: "a\nb" }])
  })

  it("carries a line and a CRLF split between reads", () => {
    const results = viaDecoder(["data: {\"a\"", ":1}\r", "\n\r", "\n"])
    expect(results.flatMap((r) => r.events.map((e) => e.data))).toEqual(['{"a":1}'])
  })

  it("counts an event's size as Effect's parser does, to the character", () => {
    const results = (piece: string) => [viaDecoder([piece], 8)[0]!.result, viaEffect([piece], 8)[0]!.result]
    // Data of 7 characters counts 8 with its newline; an unterminated line counts as it is.
    expect(results("data: 1234567\n")).toEqual(["ok", "ok"])
    expect(results("data: 12345678\n")).toEqual(["too-large", "too-large"])
    expect(results("data: 12")).toEqual(["ok", "ok"])
    expect(results("data: 123")).toEqual(["too-large", "too-large"])
  })

  it("reports a retry directive and an oversized event", () => {
    expect(viaDecoder(["retry: 1000\n\n"])[0]!.result).toBe("retry")
    expect(viaDecoder(["data: 0123456789abcdef"], 8)[0]!.result).toBe("too-large")
  })
})
