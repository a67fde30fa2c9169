import type { ChatMessage } from "./ChatMessage.ts"
import { GatewayError } from "./GatewayError.ts"

const dataUrlHead = /^data:[^,;]*(?:;[^,;]*)*;base64,/i

/** The alphabet and line breaks, as far as they go. */
const base64Run = /[A-Za-z0-9+/\r\n]*/y
/** What may follow: at most two `=`, then only line breaks. */
const base64Tail = /(={0,2})[\r\n]*$/y

/**
 * Whether `text` from `start` on is base64 that decodes exactly: the standard alphabet (line
 * breaks allowed), at most two `=` of padding at the end, and a length that is a whole number of
 * bytes. Node would decode anything, silently dropping what it cannot read.
 *
 * Native scans only, in linear time: a 100 MB video payload costs a few tens of milliseconds,
 * where a loop over its characters held the event loop for most of a second. The run and the tail
 * are matched apart: as one pattern, every line break the run gave back was tried against the
 * tail again, which was quadratic on a long run of line breaks.
 */
export const isBase64From = (text: string, start: number): boolean => {
  if (start > text.length) return false
  base64Run.lastIndex = start
  base64Run.exec(text)
  base64Tail.lastIndex = base64Run.lastIndex
  const tail = base64Tail.exec(text)
  if (tail === null) return false
  if (text.indexOf("\n", start) !== -1 || text.indexOf("\r", start) !== -1) return true
  const padding = tail[1]!.length
  const symbols = text.length - start - padding
  if (symbols === 0) return false
  return padding === 0 ? symbols % 4 !== 1 : (symbols + padding) % 4 === 0
}

/** Where the base64 of a `data:<type>;base64,` URL starts, or -1 when `url` is not one. */
export const dataUrlPayloadStart = (url: string): number => {
  const head = dataUrlHead.exec(url.length > 1024 ? url.slice(0, 1024) : url)
  return head === null ? -1 : head[0].length
}

const invalidData = (at: string, what: string) => GatewayError.invalid(`'${at}' is not ${what}.`, at, "invalid_base64")

/** A base64 string or a base64 data URL. */
const checkBase64OrDataUrl = (value: string, at: string): GatewayError | undefined => {
  if (/^data:/i.test(value)) {
    const start = dataUrlPayloadStart(value)
    return start === -1 || !isBase64From(value, start) ? invalidData(at, "a base64 data URL (data:<type>;base64,...)") : undefined
  }
  return isBase64From(value, 0) ? undefined : invalidData(at, "valid base64")
}

/**
 * Inline media is checked before any upstream call: an image `data:` URL, inline audio or video
 * whose base64 does not decode is a 400 naming the field, never something sent on to a provider.
 * (`file_data` is decoded, and checked, by the document resolver.)
 */
export const checkInlineData = (messages: ReadonlyArray<ChatMessage>): GatewayError | undefined => {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role !== "user" || typeof message.content === "string") continue
    for (let j = 0; j < message.content.length; j++) {
      const part = message.content[j]!
      const path = `messages[${i}].content[${j}]`
      let problem: GatewayError | undefined
      switch (part.type) {
        case "image_url": {
          const url = part.image_url.url
          if (/^data:/i.test(url)) problem = checkBase64OrDataUrl(url, `${path}.image_url.url`)
          break
        }
        case "input_audio":
          problem = checkBase64OrDataUrl(part.input_audio.data, `${path}.input_audio.data`)
          break
        case "input_video":
          if (part.input_video.data !== undefined) problem = checkBase64OrDataUrl(part.input_video.data, `${path}.input_video.data`)
          break
        default:
          break
      }
      if (problem !== undefined) return problem
    }
  }
  return undefined
}
