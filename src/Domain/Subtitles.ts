import type { TranscriptSegment } from "./Transcription.ts"

/** Whole milliseconds of a time in seconds; negative and non-finite times count as 0. */
const millis = (seconds: number): number => (Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0)

const pad = (value: number, width: number): string => String(value).padStart(width, "0")

/** `HH:MM:SS<sep>mmm`: SubRip separates milliseconds with a comma, WebVTT with a full stop. */
export const subtitleTime = (seconds: number, separator: "," | "."): string => {
  const ms = millis(seconds)
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = Math.floor((ms % 60_000) / 1000)
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${separator}${pad(ms % 1000, 3)}`
}

// A cue's text may not contain a blank line (it would end the cue), nor, in WebVTT, the "-->"
// arrow; the text is trimmed as Whisper's own subtitles are.
const cueText = (text: string): string =>
  text
    .trim()
    .replace(/\r\n?/g, "\n")
    .replace(/\n{2,}/g, "\n")

/** A cue never ends before it starts. */
const span = (segment: TranscriptSegment): { readonly start: number; readonly end: number } => {
  const start = millis(segment.start) / 1000
  return { start, end: Math.max(start, millis(segment.end) / 1000) }
}

/** SubRip: numbered cues from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each. */
export const toSrt = (segments: ReadonlyArray<TranscriptSegment>): string =>
  segments
    .map((segment, i) => {
      const { start, end } = span(segment)
      return `${i + 1}\n${subtitleTime(start, ",")} --> ${subtitleTime(end, ",")}\n${cueText(segment.text)}\n\n`
    })
    .join("")

/** WebVTT: the `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`, a blank line after each. */
export const toVtt = (segments: ReadonlyArray<TranscriptSegment>): string =>
  "WEBVTT\n\n" +
  segments
    .map((segment) => {
      const { start, end } = span(segment)
      return `${subtitleTime(start, ".")} --> ${subtitleTime(end, ".")}\n${cueText(segment.text).replace(/-->/g, "->")}\n\n`
    })
    .join("")
