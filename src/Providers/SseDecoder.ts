import type * as Sse from "effect/encoding/Sse"

/** What `feed` saw besides events: a `retry:` directive, or an event past the size limit. */
export type SseFeedResult = "ok" | "retry" | "too-large"

export interface SseDecoder {
  /**
   * Parses the next piece of text; complete events go to `out`, in order. After `too-large` the
   * stream is broken: the decoder is not fed again.
   */
  readonly feed: (text: string, out: Array<Sse.Event>) => SseFeedResult
}

const LF = 10
const CR = 13
const SPACE = 32
const BOM = 0xfeff
const digits = /^\d+$/

/**
 * A Server-Sent Events parser (WHATWG "interpreting an event stream"): CRLF, LF and CR line
 * ends, a leading BOM, comments, `data`/`event`/`id` fields, multi-line data, any split between
 * reads. It yields what Effect's `Sse.makeParser` yields for the same text (a property test
 * holds them equal) at a fraction of its cost per event: line ends are found with `indexOf`
 * rather than character by character, and the usual one-line `data:` keeps its value as is
 * instead of building it with a newline that is then cut off again.
 */
export const makeSseDecoder = (maxEventSize = 10 * 1024 * 1024): SseDecoder => {
  let first = true
  // The unterminated end of the previous piece, and whether a CR ended it (its LF may follow).
  let pending = ""
  let skipLf = false
  let data: string | undefined
  let eventName: string | undefined
  let lastEventId: string | undefined
  let sawRetry = false

  const line = (text: string, out: Array<Sse.Event>) => {
    if (text.length === 0) {
      if (data !== undefined) out.push({ _tag: "Event", id: lastEventId, event: eventName || "message", data })
      data = undefined
      eventName = undefined
      return
    }
    const colon = text.indexOf(":")
    if (colon === 0) return
    // The field name is compared in place: no string is made for it.
    const nameLength = colon === -1 ? text.length : colon
    const value = colon === -1 ? "" : text.slice(text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (nameLength === 4 && text.startsWith("data")) data = data === undefined ? value : `${data}\n${value}`
    else if (nameLength === 5 && text.startsWith("event")) eventName = value
    else if (nameLength === 2 && text.startsWith("id")) {
      if (!value.includes("\u0000")) lastEventId = value
    } else if (nameLength === 5 && text.startsWith("retry") && digits.test(value)) sawRetry = true
  }

  const feed = (chunk: string, out: Array<Sse.Event>): SseFeedResult => {
    const length = chunk.length
    if (length === 0) return "ok"
    let position = 0
    if (first) {
      first = false
      if (chunk.charCodeAt(0) === BOM) position = 1
    }
    if (skipLf) {
      skipLf = false
      if (chunk.charCodeAt(position) === LF) position++
    }
    sawRetry = false
    // Each search runs once over the text: a found index is reused until the scan passes it.
    let nextLf = chunk.indexOf("\n", position)
    let nextCr = chunk.indexOf("\r", position)
    while (position < length) {
      if (nextLf !== -1 && nextLf < position) nextLf = chunk.indexOf("\n", position)
      if (nextCr !== -1 && nextCr < position) nextCr = chunk.indexOf("\r", position)
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr)
      if (end === -1) {
        pending += chunk.slice(position)
        break
      }
      let text = chunk.slice(position, end)
      if (pending.length > 0) {
        text = pending + text
        pending = ""
      }
      position = end + 1
      if (chunk.charCodeAt(end) === CR) {
        if (position === length) skipLf = true
        else if (chunk.charCodeAt(position) === LF) position++
      }
      line(text, out)
    }
    // Counted as Effect's parser counts it: data with a newline after each line.
    if (pending.length + (data === undefined ? 0 : data.length + 1) > maxEventSize) return "too-large"
    return sawRetry ? "retry" : "ok"
  }

  return { feed }
}
