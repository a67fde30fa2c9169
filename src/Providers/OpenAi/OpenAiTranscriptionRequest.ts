import { audioFormats, extensionOf } from "../../Domain/AudioFormat.ts"
import type { MeasuredAudio, TranscriptionRequest } from "../../Domain/Transcription.ts"
import type { TranscriptionTarget } from "../TranscriptionProvider.ts"

/**
 * The multipart form of `POST /audio/transcriptions` and `/audio/translations` around the
 * audio bytes: `head` (every field, then the file part's headers) and `tail` (the closing
 * boundary), so the file itself can be streamed between them from disk. Field names and
 * values as OpenAI documents them; arrays as `timestamp_granularities[]`, like its SDKs.
 * @see https://platform.openai.com/docs/api-reference/audio/createTranscription
 */
export interface OpenAiTranscriptionForm {
  readonly contentType: string
  readonly head: Buffer
  readonly tail: Buffer
  /** head + file + tail, for the Content-Length header. */
  readonly contentLength: number
}

// Quotes, backslashes and line breaks would end the header value early.
const quoted = (value: string): string => value.replace(/[\\"]/g, "_").replace(/[\r\n]/g, " ")

/**
 * The name the upstream sees. OpenAI tells formats apart by the extension, so a name whose
 * extension is not one of the detected format's gets that format's own extension.
 */
export const upstreamFilename = (audio: MeasuredAudio): string => {
  const info = audioFormats[audio.format]
  const ext = extensionOf(audio.filename)
  if (ext !== undefined && info.extensions.includes(ext)) return audio.filename
  const stem = audio.filename.replace(/\.[^./\\]*$/, "") || "audio"
  return `${stem}.${info.extension}`
}

export const openAiTranscriptionForm = (
  request: TranscriptionRequest,
  audio: MeasuredAudio,
  target: TranscriptionTarget,
  boundary: string
): OpenAiTranscriptionForm => {
  const fields: Array<readonly [string, string]> = [["model", target.upstreamModel]]
  if (request.task === "transcribe" && request.language !== undefined) fields.push(["language", request.language])
  if (request.prompt !== undefined) fields.push(["prompt", request.prompt])
  fields.push(["response_format", target.ask.format])
  if (request.temperature !== undefined) fields.push(["temperature", String(request.temperature)])
  for (const granularity of target.ask.granularities) fields.push(["timestamp_granularities[]", granularity])
  let head = ""
  for (const [name, value] of fields) head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(upstreamFilename(audio))}"\r\n` +
    `Content-Type: ${audioFormats[audio.format].mimeType}\r\n\r\n`
  const headBytes = Buffer.from(head, "utf8")
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, "utf8")
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: headBytes,
    tail,
    contentLength: headBytes.length + audio.bytes + tail.length
  }
}
