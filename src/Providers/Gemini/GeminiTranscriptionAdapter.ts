import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { MeasuredAudio, TranscriptionRequest, UpstreamTranscript } from "../../Domain/Transcription.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import type { TranscriptionProvider, TranscriptionTarget } from "../TranscriptionProvider.ts"
import { geminiError } from "./GeminiErrors.ts"
import {
  base64Length,
  geminiAudioMime,
  geminiInlineBodyParts,
  geminiTranscriptionBody,
  wantsSegments
} from "./GeminiTranscriptionRequest.ts"
import { transcriptFromGemini } from "./GeminiTranscriptionResponse.ts"
import { rec, str } from "./GeminiWire.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/**
 * Inline audio is base64 inside a request that must stay under 20 MB; larger files go through
 * the Files API. 14,000,000 bytes of audio are 18,666,668 of base64, leaving room for the rest.
 * @see https://ai.google.dev/gemini-api/docs/audio#inline-audio
 */
export const geminiInlineLimitBytes = 14_000_000

/** The file as base64, encoded from disk as it is read (whole 3-byte groups per chunk). */
const base64Stream = (before: Buffer, path: string, after: Buffer): Readable =>
  Readable.from(
    (async function*() {
      yield before
      let rest: Buffer = Buffer.alloc(0)
      for await (const chunk of createReadStream(path, { highWaterMark: 255 * 1024 })) {
        const bytes = rest.length === 0 ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer])
        const whole = bytes.length - (bytes.length % 3)
        yield Buffer.from(bytes.subarray(0, whole).toString("base64"), "latin1")
        rest = bytes.subarray(whole)
      }
      if (rest.length > 0) yield Buffer.from(rest.toString("base64"), "latin1")
      yield after
    })(),
    { objectMode: false }
  )

export interface GeminiTranscriptionOptions {
  /** Files larger than this are uploaded through the Files API; tests lower it. */
  readonly inlineLimitBytes?: number
  /** How often, and how many times, a file still PROCESSING is looked at again. */
  readonly pollMs?: number
  readonly maxPolls?: number
}

/**
 * Google Gemini through `models/{model}:generateContent`, with the audio inline or, when large,
 * uploaded first with the Files API's resumable protocol (and deleted after the call), and an
 * instruction to transcribe or translate. The answer is structured output: one text, or timed
 * segments when `verbose_json` (or subtitles built from it) was asked.
 * @see https://ai.google.dev/gemini-api/docs/audio
 * @see https://ai.google.dev/api/files
 */
export const makeGeminiTranscriptionProvider = (config: ProviderConfig, options: GeminiTranscriptionOptions = {}) =>
  Effect.gen(function*() {
    const http = yield* makeProviderHttp(config)
    const inlineLimit = options.inlineLimitBytes ?? geminiInlineLimitBytes
    const base = trimEndChars(config.base_url, "/")
    const baseUrl = new URL(base)
    const uploadUrl = `${baseUrl.origin}/upload${trimEndChars(baseUrl.pathname, "/")}/files`
    const auth: Record<string, string> = { ...config.headers }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") auth["x-goog-api-key"] = Redacted.value(config.api_key)
    const spans = yield* optionalSpans

    const answer = <A>(response: { status: number; header: (n: string) => string | undefined; text: string }, read: (body: unknown) => A | string) =>
      Effect.flatMap(jsonAnswer(config.id, response, geminiError), (body) => {
        const value = read(body)
        return typeof value === "string" ? Effect.fail(badResponse(config.id, value)) : Effect.succeed(value)
      })

    interface UploadedFile {
      readonly name: string
      readonly uri: string
      readonly state: string | undefined
    }
    const fileOf = (body: unknown): UploadedFile | string => {
      const file = rec(rec(body)["file"] ?? body)
      const name = str(file["name"])
      const uri = str(file["uri"])
      return name === undefined || uri === undefined ? "the Files API answer had no file name or uri" : { name, uri, state: str(file["state"]) }
    }

    // Resumable upload: `start` gives the session URL, `upload, finalize` sends the bytes there.
    const upload = (audio: MeasuredAudio, mimeType: string) =>
      Effect.gen(function*() {
        const started = yield* http.send({
          method: "POST",
          url: uploadUrl,
          headers: {
            ...auth,
            "content-type": "application/json",
            "x-goog-upload-protocol": "resumable",
            "x-goog-upload-command": "start",
            "x-goog-upload-header-content-length": String(audio.bytes),
            "x-goog-upload-header-content-type": mimeType
          },
          body: JSON.stringify({ file: { display_name: audio.filename.slice(0, 200) } })
        })
        if (started.status < 200 || started.status >= 300) return yield* geminiError(config.id, started, started.text)
        const session = started.header("x-goog-upload-url")
        if (session === undefined || new URL(session, uploadUrl).origin !== baseUrl.origin) {
          return yield* badResponse(config.id, "the Files API gave no upload URL on its own origin")
        }
        const sent = yield* http.send({
          method: "POST",
          url: new URL(session, uploadUrl).href,
          headers: {
            ...config.headers,
            "content-length": String(audio.bytes),
            "x-goog-upload-offset": "0",
            "x-goog-upload-command": "upload, finalize"
          },
          body: createReadStream(audio.path, { highWaterMark: 256 * 1024 })
        })
        let file = yield* answer(sent, fileOf)
        for (let polls = 0; file.state === "PROCESSING"; polls++) {
          if (polls >= (options.maxPolls ?? 30)) return yield* badResponse(config.id, `the uploaded file ${file.name} was still processing`)
          yield* Effect.sleep(options.pollMs ?? 1000)
          file = yield* answer(yield* http.send({ method: "GET", url: `${base}/${file.name}`, headers: auth }), fileOf)
        }
        if (file.state === "FAILED") return yield* badResponse(config.id, `the Files API could not process the audio`)
        return file
      })

    const remove = (file: UploadedFile) =>
      http.send({ method: "DELETE", url: `${base}/${file.name}`, headers: auth }).pipe(
        Effect.catchCause((cause) => Effect.logDebug(`Gemini file ${file.name} not deleted`, cause)),
        Effect.asVoid
      )

    const generate = (target: TranscriptionTarget, body: { headers: Record<string, string>; body: string | Readable }, audio: MeasuredAudio) =>
      http.send({
        method: "POST",
        url: `${base}/models/${encodeURIComponent(target.upstreamModel)}:generateContent`,
        headers: { ...auth, accept: "application/json", "content-type": "application/json", ...body.headers },
        body: body.body
      }).pipe(Effect.flatMap((response) => answer(response, (parsed) => transcriptFromGemini(parsed, wantsSegments(target), audio.durationSeconds))))

    const transcribe = (request: TranscriptionRequest, audio: MeasuredAudio, target: TranscriptionTarget): Effect.Effect<UpstreamTranscript, GatewayError> => {
      const mimeType = geminiAudioMime[audio.format]
      const call = audio.bytes <= inlineLimit
        ? Effect.suspend(() => {
          const { before, after } = geminiInlineBodyParts(request, target, audio.format)
          const length = before.length + base64Length(audio.bytes) + after.length
          return generate(target, { headers: { "content-length": String(length) }, body: base64Stream(before, audio.path, after) }, audio)
        })
        : Effect.acquireUseRelease(
          upload(audio, mimeType),
          (file) => generate(target, { headers: {}, body: JSON.stringify(geminiTranscriptionBody(request, target, { fileData: { mimeType, fileUri: file.uri } })) }, audio),
          remove
        )
      return call.pipe(
        spans.span("Gemini.transcribe", {
          attributes: { "gen_ai.system": "gemini", "gen_ai.request.model": target.upstreamModel, "gateway.audio.bytes": audio.bytes }
        })
      )
    }

    return { id: config.id, transcribe } satisfies TranscriptionProvider
  })
