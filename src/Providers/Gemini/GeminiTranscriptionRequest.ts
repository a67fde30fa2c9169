import type { AudioFormat } from "../../Domain/AudioFormat.ts"
import { languageName } from "../../Domain/LanguageCodes.ts"
import type { TranscriptionRequest } from "../../Domain/Transcription.ts"
import type { TranscriptionTarget } from "../TranscriptionProvider.ts"
import type { GeminiSchema } from "./GeminiWire.ts"

/**
 * The MIME type Gemini is told for each accepted format: its documented audio types where one
 * fits, and the video types of the same containers (whose audio Gemini also hears) otherwise.
 * @see https://ai.google.dev/gemini-api/docs/audio#supported-formats
 * @see https://ai.google.dev/gemini-api/docs/video-understanding#supported-formats
 */
export const geminiAudioMime: Readonly<Record<AudioFormat, string>> = {
  flac: "audio/flac",
  mp3: "audio/mp3",
  mp4: "audio/m4a",
  mpeg: "video/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
  webm: "video/webm"
}

const plainSchema: GeminiSchema = {
  type: "OBJECT",
  properties: {
    language: { type: "STRING", description: "ISO-639-1 code of the spoken language" },
    text: { type: "STRING", description: "The whole transcript" }
  },
  required: ["language", "text"],
  propertyOrdering: ["language", "text"]
}

const segmentedSchema: GeminiSchema = {
  type: "OBJECT",
  properties: {
    language: { type: "STRING", description: "ISO-639-1 code of the spoken language" },
    segments: {
      type: "ARRAY",
      items: {
        type: "OBJECT",
        properties: {
          start: { type: "NUMBER", description: "Seconds from the start of the audio where the segment begins" },
          end: { type: "NUMBER", description: "Seconds from the start of the audio where the segment ends" },
          text: { type: "STRING" }
        },
        required: ["start", "end", "text"],
        propertyOrdering: ["start", "end", "text"]
      }
    }
  },
  required: ["language", "segments"],
  propertyOrdering: ["language", "segments"]
}

/** Whether the answer is asked as timed segments (for `verbose_json`, and subtitles built from it). */
export const wantsSegments = (target: TranscriptionTarget): boolean => target.ask.format === "verbose_json"

/** The instruction sent with the audio: what to do, in which language, and how to lay out the answer. */
export const geminiTranscriptionPrompt = (request: TranscriptionRequest, segmented: boolean): string => {
  const lines = [
    request.task === "translate"
      ? "Translate the speech in this audio into English. Write only the English translation of what is said."
      : `Transcribe the speech in this audio verbatim, in the language it is spoken in${request.language === undefined ? "" : ` (${languageName(request.language)})`}.`,
    "Do not summarise, comment or add anything that is not said. If nothing is said, give an empty transcript.",
    segmented
      ? "Split the transcript into segments of one sentence or phrase, in order, each with its start and end in seconds from the beginning of the audio."
      : "Give the whole transcript as one text.",
    `Report the spoken language as an ISO-639-1 code.`
  ]
  if (request.prompt !== undefined) lines.push(`Context that may help with names and spelling (it is not part of the audio): ${request.prompt}`)
  return lines.join("\n")
}

export type GeminiAudioPart =
  | { readonly inlineData: { readonly mimeType: string; readonly data: string } }
  | { readonly fileData: { readonly mimeType: string; readonly fileUri: string } }

/**
 * The `generateContent` body: the audio part, then the instruction, with structured output so
 * the answer can be read without guessing.
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 */
export const geminiTranscriptionBody = (request: TranscriptionRequest, target: TranscriptionTarget, audio: GeminiAudioPart) => {
  const segmented = wantsSegments(target)
  return {
    contents: [{ role: "user", parts: [audio, { text: geminiTranscriptionPrompt(request, segmented) }] }],
    generationConfig: {
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      responseMimeType: "application/json",
      responseSchema: segmented ? segmentedSchema : plainSchema
    }
  }
}

/** A placeholder with no character JSON escapes, replaced by the base64 audio as it streams. */
const dataMark = "GATEWAY_AUDIO_DATA_6c1f"

/**
 * The body with inline audio as the text before and after the base64 data, so the file can be
 * encoded from disk as it is sent. The mark's first occurrence is the data field: the audio
 * part comes before any text the client supplied.
 */
export const geminiInlineBodyParts = (request: TranscriptionRequest, target: TranscriptionTarget, format: AudioFormat) => {
  const json = JSON.stringify(geminiTranscriptionBody(request, target, { inlineData: { mimeType: geminiAudioMime[format], data: dataMark } }))
  const at = json.indexOf(dataMark)
  return { before: Buffer.from(json.slice(0, at), "utf8"), after: Buffer.from(json.slice(at + dataMark.length), "utf8") }
}

/** Characters of base64 for `bytes` bytes (padded). */
export const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3)
