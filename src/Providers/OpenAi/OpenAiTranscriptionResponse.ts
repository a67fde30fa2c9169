import type { TranscriptionFormat, TranscriptSegment, TranscriptWord, UpstreamTranscript } from "../../Domain/Transcription.ts"
import { parseJson } from "../JsonAnswer.ts"
import { arr, isRecord, num, str } from "../JsonReaders.ts"

const segmentKeys: ReadonlySet<string> = new Set(["id", "start", "end", "text"])

/** One `verbose_json` segment; its other fields (seek, tokens, avg_logprob, ...) are kept as they came. */
const segmentOf = (value: unknown, index: number): TranscriptSegment | undefined => {
  if (!isRecord(value)) return undefined
  const start = num(value["start"])
  const end = num(value["end"])
  const text = str(value["text"])
  if (start === undefined || end === undefined || text === undefined) return undefined
  const extra: Record<string, unknown> = {}
  for (const key in value) if (!segmentKeys.has(key)) extra[key] = value[key]
  return { id: num(value["id"]) ?? index, start, end, text, extra }
}

const wordOf = (value: unknown): TranscriptWord | undefined => {
  if (!isRecord(value)) return undefined
  const word = str(value["word"])
  const start = num(value["start"])
  const end = num(value["end"])
  return word === undefined || start === undefined || end === undefined ? undefined : { word, start, end }
}

/**
 * The answer of OpenAI (or a compatible server) to the format that was asked: `text`, `srt`
 * and `vtt` bodies are passed on as they are; `json` and `verbose_json` are read into the
 * structured transcript. A string says what was wrong with an unreadable answer.
 */
export const transcriptFromOpenAi = (asked: TranscriptionFormat, body: string): UpstreamTranscript | string => {
  if (asked === "text" || asked === "srt" || asked === "vtt") return { _tag: "Body", format: asked, body }
  const parsed = parseJson(body)
  if (!isRecord(parsed)) return "the body was not a JSON object"
  const text = str(parsed["text"])
  if (text === undefined) return "the transcript had no 'text'"
  if (asked === "json") return { _tag: "Structured", text }
  const segments: Array<TranscriptSegment> = []
  for (const [i, raw] of arr(parsed["segments"]).entries()) {
    const segment = segmentOf(raw, i)
    if (segment === undefined) return `segment ${i} had no start, end or text`
    segments.push(segment)
  }
  const words = Array.isArray(parsed["words"]) ? arr(parsed["words"]).map(wordOf) : undefined
  if (words?.includes(undefined) === true) return "a word had no start, end or text"
  const language = str(parsed["language"])
  return {
    _tag: "Structured",
    text,
    ...(Array.isArray(parsed["segments"]) ? { segments } : {}),
    ...(words === undefined ? {} : { words: words as Array<TranscriptWord> }),
    ...(language === undefined ? {} : { language })
  }
}
