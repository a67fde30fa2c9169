import { randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { MeasuredAudio, TranscriptionRequest } from "../../Domain/Transcription.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import type { TranscriptionProvider, TranscriptionTarget } from "../TranscriptionProvider.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { openAiTranscriptionForm } from "./OpenAiTranscriptionRequest.ts"
import { transcriptFromOpenAi } from "./OpenAiTranscriptionResponse.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/** The form's head, the file read from disk in the stream's own chunks, and the closing boundary. */
const formStream = (head: Buffer, path: string, tail: Buffer): Readable =>
  Readable.from(
    (async function*() {
      yield head
      for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) yield chunk as Buffer
      yield tail
    })(),
    { objectMode: false }
  )

/**
 * `POST {base_url}/audio/transcriptions` and `/audio/translations` on OpenAI and every
 * OpenAI-compatible server whose profile has them (Groq, vLLM, a local Whisper server). The
 * file is streamed from disk into the multipart body on each attempt, never held whole. Its
 * own connection pool, like embeddings, so long uploads never hold the sockets chat waits for.
 * Undefined for a profile without the audio endpoints.
 * @see https://platform.openai.com/docs/api-reference/audio
 */
export const makeOpenAiTranscriptionProvider = (config: ProviderConfig) =>
  Effect.gen(function*() {
    const profile = config.kind === "openai" ? profiles["openai"]! : profileFor(config.profile)
    if (!profile.transcription) return undefined
    const http = yield* makeProviderHttp(config)
    const base = trimEndChars(config.base_url, "/")
    const headers: Record<string, string> = { ...config.headers, accept: "application/json, text/plain, */*" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") {
      const key = Redacted.value(config.api_key)
      headers[profile.authHeader] = profile.authScheme === "" ? key : `${profile.authScheme} ${key}`
    }
    const spans = yield* optionalSpans

    const transcribe = (request: TranscriptionRequest, audio: MeasuredAudio, target: TranscriptionTarget) =>
      Effect.suspend(() => {
        const form = openAiTranscriptionForm(request, audio, target, `gateway-${randomBytes(12).toString("hex")}`)
        const path = request.task === "translate" ? "audio/translations" : "audio/transcriptions"
        return http.send({
          method: "POST",
          url: `${base}/${path}`,
          headers: { ...headers, "content-type": form.contentType, "content-length": String(form.contentLength) },
          body: formStream(form.head, audio.path, form.tail)
        })
      }).pipe(
        Effect.flatMap((response) => {
          if (response.status < 200 || response.status >= 300) return Effect.fail(openAiError(config.id, response, response.text))
          const transcript = transcriptFromOpenAi(target.ask.format, response.text)
          return typeof transcript === "string" ? Effect.fail(badResponse(config.id, transcript)) : Effect.succeed(transcript)
        }),
        spans.span("OpenAi.transcribe", {
          attributes: { "gen_ai.system": "openai", "gen_ai.request.model": target.upstreamModel, "gateway.audio.bytes": audio.bytes }
        })
      )

    return { id: config.id, transcribe } satisfies TranscriptionProvider
  })
