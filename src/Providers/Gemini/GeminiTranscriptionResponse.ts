import type { TranscriptSegment, UpstreamTranscript } from "../../Domain/Transcription.ts"
import { parseJson } from "../JsonAnswer.ts"
import { arr, isRecord, num, rec, str } from "./GeminiWire.ts"

/** Finish reasons after which the answer is not a transcript. @see https://ai.google.dev/api/generate-content#FinishReason */
const refused: ReadonlySet<string> = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "OTHER"])

/**
 * A `generateContent` answer to the transcription instruction -> the transcript. Segments are
 * the model's own timings, kept in order; an end past the measured duration is cut to it and
 * never before the start. A string says why the answer cannot be used.
 */
export const transcriptFromGemini = (answer: unknown, segmented: boolean, durationSeconds: number): UpstreamTranscript | string => {
  const body = rec(answer)
  const blocked = str(rec(body["promptFeedback"])["blockReason"])
  if (blocked !== undefined) return `the request was blocked (${blocked})`
  const candidate = rec(arr(body["candidates"])[0])
  const finish = str(candidate["finishReason"])
  if (finish !== undefined && refused.has(finish)) return `the model stopped (${finish})`
  if (finish === "MAX_TOKENS") return "the transcript was cut off at the model's output limit"
  const text = arr(rec(candidate["content"])["parts"])
    .filter((p) => isRecord(p) && p["thought"] !== true)
    .map((p) => str(rec(p)["text"]) ?? "")
    .join("")
  if (text.trim() === "") return "the answer had no text"
  const parsed = parseJson(text)
  if (!isRecord(parsed)) return "the answer was not the JSON object asked for"
  const language = str(parsed["language"])
  const withLanguage = language === undefined || language.trim() === "" ? {} : { language }
  if (!segmented) {
    const transcript = str(parsed["text"])
    if (transcript === undefined) return "the answer had no 'text'"
    return { _tag: "Structured", text: transcript.trim(), ...withLanguage }
  }
  const segments: Array<TranscriptSegment> = []
  for (const [i, raw] of arr(parsed["segments"]).entries()) {
    const item = rec(raw)
    const start = num(item["start"])
    const end = num(item["end"])
    const segmentText = str(item["text"])
    if (start === undefined || end === undefined || segmentText === undefined) return `segment ${i} had no start, end or text`
    const from = Math.min(Math.max(0, start), durationSeconds)
    segments.push({ id: segments.length, start: from, end: Math.min(Math.max(from, end), durationSeconds), text: segmentText.trim() })
  }
  segments.sort((a, b) => a.start - b.start)
  const ordered = segments.map((s, id) => ({ ...s, id }))
  return {
    _tag: "Structured",
    text: ordered.map((s) => s.text).filter((t) => t !== "").join(" "),
    segments: ordered,
    ...withLanguage
  }
}
