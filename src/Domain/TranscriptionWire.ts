import { languageName, normaliseLanguage } from "./LanguageCodes.ts"
import { toSrt, toVtt } from "./Subtitles.ts"
import type { TranscriptionFormat, TranscriptionRequest, TranscriptSegment, UpstreamTranscript } from "./Transcription.ts"

/** Content types of the five formats; the subtitle and text formats are UTF-8 text. */
export const transcriptionContentTypes: Readonly<Record<TranscriptionFormat, string>> = {
  json: "application/json",
  verbose_json: "application/json",
  text: "text/plain; charset=utf-8",
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8"
}

export interface RenderContext {
  readonly request: TranscriptionRequest
  /** Measured by the gateway; `verbose_json` reports it whatever the upstream said. */
  readonly durationSeconds: number
  readonly billedSeconds: number
}

export type Rendered = { readonly body: string; readonly contentType: string } | { readonly missing: string }

const segmentWire = (segment: TranscriptSegment): Record<string, unknown> => ({
  id: segment.id,
  ...segment.extra,
  start: segment.start,
  end: segment.end,
  text: segment.text
})

/**
 * The response body of a transcript in the client's format. `missing` names what the upstream
 * left out that the format needs (segments for subtitles), which the caller reports as a bad
 * upstream response. The language of `verbose_json` is OpenAI's lower-case English name:
 * "english" for every translation, else the language the client named, else what the upstream
 * detected, else "unknown".
 */
export const renderTranscript = (transcript: UpstreamTranscript, context: RenderContext): Rendered => {
  const { request } = context
  const format = request.responseFormat
  const contentType = transcriptionContentTypes[format]
  if (transcript._tag === "Body") return { body: transcript.body, contentType }
  const text = transcript.text.trim()
  // OpenAI reports the billed seconds with json and verbose_json transcriptions.
  const usage = request.task === "transcribe" ? { usage: { type: "duration", seconds: context.billedSeconds } } : {}
  switch (format) {
    case "json":
      return { body: JSON.stringify({ text, ...usage }), contentType }
    case "text":
      return { body: `${text}\n`, contentType }
    case "srt":
    case "vtt": {
      if (transcript.segments === undefined) return { missing: "segments" }
      return { body: format === "srt" ? toSrt(transcript.segments) : toVtt(transcript.segments), contentType }
    }
    case "verbose_json": {
      const language = request.task === "translate"
        ? "english"
        : request.language !== undefined
        ? languageName(request.language)
        : normaliseLanguage(transcript.language) ?? "unknown"
      const body = {
        task: request.task,
        language,
        duration: Math.round(context.durationSeconds * 1000) / 1000,
        text,
        segments: (transcript.segments ?? []).map(segmentWire),
        ...(transcript.words === undefined ? {} : { words: transcript.words }),
        ...usage
      }
      return { body: JSON.stringify(body), contentType }
    }
  }
}
