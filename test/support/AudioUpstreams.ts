import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import type { RecordedRequest, Reply } from "./FakeUpstream.ts"
import { fixturesDir } from "./Fixtures.ts"

/** The fixture corpus's audio and bad entries, with the fields the audio tests read. */
export interface AudioFixture {
  readonly path: string
  readonly category: "audio" | "bad" | "video"
  readonly format: string
  readonly mime: string
  readonly duration_seconds?: number
  readonly decoded_duration_seconds?: number
  readonly spoken_text?: string
  readonly expected_error?: "corrupt" | "unsupported" | "empty" | "mismatch"
  readonly size_bytes: number
}

const manifest = JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")) as { files: Array<AudioFixture> }

export const audioFixtures = manifest.files.filter((f) => f.category === "audio")
export const badFixtures = manifest.files.filter((f) => f.category === "bad")
export const fixture = (path: string): AudioFixture => {
  const found = manifest.files.find((f) => f.path === path)
  if (found === undefined) throw new Error(`${path} is not in the manifest`)
  return found
}
export const fixtureBytes = (entry: AudioFixture | string): Buffer =>
  readFileSync(NodePath.join(fixturesDir, typeof entry === "string" ? entry : entry.path))
export const fixtureName = (entry: AudioFixture): string => NodePath.basename(entry.path)

/** The formats the speech endpoints accept by name (spec 4.2), for the expected audio errors below. */
const audioNames: ReadonlySet<string> = new Set(["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"])

/**
 * The error class the speech endpoints give a `bad/` file. The manifest's classes are written
 * for document extraction; mirroring its note that a damaged audio file is simply not a
 * document, a damaged or renamed document or image is simply not audio (`unsupported`), while
 * files that claim to be audio (or are empty) keep their class.
 */
export const expectedAudioError = (entry: AudioFixture): string => {
  const error = entry.expected_error!
  if (error === "empty" || audioNames.has(entry.format) || entry.format === "aiff") return error
  return "unsupported"
}

/**
 * A measured duration is right when it is within 0.1 s of the container's length
 * (`duration_seconds`) or of the decoded length (`decoded_duration_seconds`): the manifest notes
 * that priming and padding separate the two by up to 0.15 s (speech.mpeg: 4.90 and 5.04).
 */
export const durationMatches = (entry: AudioFixture, seconds: number): boolean =>
  Math.abs(seconds - entry.duration_seconds!) <= 0.1 ||
  (entry.decoded_duration_seconds !== undefined && Math.abs(seconds - entry.decoded_duration_seconds) <= 0.1)

export interface UploadedForm {
  readonly fields: Record<string, Array<string>>
  readonly file: { readonly name: string; readonly type: string; readonly bytes: Buffer } | undefined
}

/** The multipart form the gateway sent, parsed by the platform's own parser. */
export const uploadedForm = async (request: RecordedRequest): Promise<UploadedForm> => {
  const form = await new Response(new Uint8Array(request.bytes), { headers: { "content-type": String(request.headers["content-type"]) } }).formData()
  const fields: Record<string, Array<string>> = {}
  let file: UploadedForm["file"]
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") (fields[name] ??= []).push(value)
    else file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) }
  }
  return { fields, file }
}

/** A form field of the recorded upload, read without parsing the whole form (responders are synchronous). */
const formField = (request: RecordedRequest, name: string): Array<string> => {
  const found: Array<string> = []
  const pattern = new RegExp(`name="${name.replace(/[[\]]/g, "\\$&")}"\\r\\n\\r\\n([^\\r]*)\\r\\n`, "g")
  for (const match of request.rawBody.matchAll(pattern)) found.push(match[1]!)
  return found
}

export const spoken = "Quartz falcon, seven three one nine."

/** Two segments, as Whisper would time the phrase. */
export const whisperSegments = [
  { id: 0, seek: 0, start: 0, end: 1.4, text: " Quartz falcon,", tokens: [50364, 1], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.9, no_speech_prob: 0.01 },
  { id: 1, seek: 0, start: 1.4, end: 2.96, text: " seven three one nine.", tokens: [2, 50512], temperature: 0, avg_logprob: -0.3, compression_ratio: 0.9, no_speech_prob: 0.01 }
]
export const whisperWords = [
  { word: "Quartz", start: 0, end: 0.5 },
  { word: "falcon", start: 0.5, end: 1.4 }
]

export const whisperSrt = "1\n00:00:00,000 --> 00:00:01,400\nQuartz falcon,\n\n2\n00:00:01,400 --> 00:00:02,960\nseven three one nine.\n\n"
export const whisperVtt = "WEBVTT\n\n00:00:00.000 --> 00:00:01.400\nQuartz falcon,\n\n00:00:01.400 --> 00:00:02.960\nseven three one nine.\n\n"

/**
 * OpenAI's `/audio/transcriptions` and `/audio/translations` as documented: the answer in the
 * asked `response_format`, text formats as text/plain. Its `duration` is deliberately not the
 * file's, so a test sees that the gateway reports its own measurement.
 * @see https://platform.openai.com/docs/api-reference/audio/createTranscription
 */
export const openAiTranscription = (request: RecordedRequest): Reply => {
  const format = formField(request, "response_format")[0] ?? "json"
  const translate = request.url.endsWith("/translations")
  const text = (body: string): Reply => ({
    kind: "raw",
    status: 200,
    body,
    headers: { "content-type": "text/plain; charset=utf-8" }
  })
  switch (format) {
    case "text":
      return text(`${spoken}\n`)
    case "srt":
      return text(whisperSrt)
    case "vtt":
      return text(whisperVtt)
    case "verbose_json": {
      const granularities = formField(request, "timestamp_granularities[]")
      const words = granularities.includes("word")
      const segments = granularities.length === 0 || granularities.includes("segment")
      return {
        kind: "json",
        status: 200,
        body: {
          task: translate ? "translate" : "transcribe",
          language: "english",
          duration: 99,
          text: spoken,
          ...(segments ? { segments: whisperSegments } : {}),
          ...(words ? { words: whisperWords } : {}),
          usage: { type: "duration", seconds: 99 }
        }
      }
    }
    default:
      return { kind: "json", status: 200, body: { text: spoken, usage: { type: "duration", seconds: 99 } } }
  }
}

/** Gemini's segments for the phrase, in the shape the gateway's response schema asks for. */
export const geminiSegments = [
  { start: 0, end: 1.5, text: "Quartz falcon," },
  { start: 1.5, end: 2.75, text: "seven three one nine." }
]
export const geminiSrt = "1\n00:00:00,000 --> 00:00:01,500\nQuartz falcon,\n\n2\n00:00:01,500 --> 00:00:02,750\nseven three one nine.\n\n"

/**
 * Gemini's `generateContent` answering the gateway's structured-output instruction: one text,
 * or timed segments when the request's schema asks for them.
 * @see https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
 */
export const geminiTranscription = (request: RecordedRequest): Reply => {
  const body = request.body as { generationConfig?: { responseSchema?: { properties?: Record<string, unknown> } } }
  const segmented = body.generationConfig?.responseSchema?.properties?.["segments"] !== undefined
  const answer = segmented ? { language: "en", segments: geminiSegments } : { language: "en", text: spoken }
  return {
    kind: "json",
    status: 200,
    body: {
      candidates: [{ content: { role: "model", parts: [{ text: JSON.stringify(answer) }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 20, totalTokenCount: 140 },
      modelVersion: "gemini-2.5-flash"
    }
  }
}

/** The inline audio part of a recorded Gemini request. */
export const geminiInlineAudio = (request: RecordedRequest): { readonly mimeType: string; readonly bytes: Buffer } | undefined => {
  const parts = (request.body as { contents?: Array<{ parts?: Array<{ inlineData?: { mimeType: string; data: string } }> }> }).contents?.[0]?.parts ?? []
  const inline = parts.find((p) => p.inlineData !== undefined)?.inlineData
  return inline === undefined ? undefined : { mimeType: inline.mimeType, bytes: Buffer.from(inline.data, "base64") }
}

/**
 * gateway.yaml for the audio tests: OpenAI (whisper-1 with every format, gpt-4o-transcribe with
 * json only), Groq through the OpenAI-compatible profile, and Gemini; plus a chat model.
 */
export const audioGatewayConfig = (
  upstreams: { readonly openai: { url: string }; readonly groq: { url: string }; readonly gemini: { url: string } },
  audio: Record<string, unknown> = {}
) => ({
  routing: { base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 1000 },
  fetch: { allow_private_networks: true },
  audio,
  providers: [
    { id: "openai", kind: "openai", base_url: `${upstreams.openai.url}/v1`, api_key: "sk-up" },
    { id: "groq", kind: "openai-compatible", profile: "groq", base_url: `${upstreams.groq.url}/openai/v1`, api_key: "gsk" },
    { id: "gemini", kind: "gemini", base_url: `${upstreams.gemini.url}/v1beta`, api_key: "g-key" }
  ],
  models: [
    {
      id: "whisper-1",
      kind: "transcription",
      deployments: [{ provider: "openai", model: "whisper-1" }],
      capabilities: { response_formats: ["json", "text", "srt", "verbose_json", "vtt"], timestamp_granularities: ["segment", "word"], translation: true },
      pricing: { per_audio_second: 0.0001 },
      fallbacks: ["gemini-stt", "gpt-4o-transcribe"]
    },
    {
      id: "gpt-4o-transcribe",
      kind: "transcription",
      deployments: [{ provider: "openai", model: "gpt-4o-transcribe" }],
      capabilities: { response_formats: ["json"] },
      pricing: { per_audio_second: 0.0001 }
    },
    {
      id: "groq-whisper",
      kind: "transcription",
      deployments: [{ provider: "groq", model: "whisper-large-v3" }],
      capabilities: { response_formats: ["json", "text", "verbose_json"], timestamp_granularities: ["segment", "word"], translation: true }
    },
    {
      id: "gemini-stt",
      kind: "transcription",
      deployments: [{ provider: "gemini", model: "gemini-2.5-flash" }],
      capabilities: { response_formats: ["json", "text", "verbose_json"], timestamp_granularities: ["segment"], translation: true },
      pricing: { per_audio_second: 0.00005 }
    },
    { id: "gpt-chat", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }
  ]
})

/** A multipart form for `fetch`: the file (a fixture, or given bytes) and the fields. */
export const audioForm = (
  file: { readonly name: string; readonly bytes: Uint8Array; readonly type?: string } | undefined,
  fields: Record<string, string | ReadonlyArray<string>>
): FormData => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    for (const item of typeof value === "string" ? [value] : value) form.append(name, item)
  }
  if (file !== undefined) form.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "application/octet-stream" }), file.name)
  return form
}
