import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { transcriptionWorstCase } from "../Domain/AdmissionCost.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import type { TranscriptionRequest, TranscriptionTask } from "../Domain/Transcription.ts"
import { decodeTranscriptionFields } from "../Domain/TranscriptionRequestDecoder.ts"
import { type StagedAudio, Transcriptions } from "../Services/Audio/Transcriptions.ts"
import { answerWith, meteredMultipartEndpoint } from "./MeteredEndpoint.ts"
import { readMultipartForm } from "./MultipartForm.ts"
import { route } from "./Route.ts"

type AudioRequest = TranscriptionRequest & { readonly upload: StagedAudio | undefined }

const notMultipart = (contentType: string) =>
  GatewayError.unsupportedMedia(
    `This endpoint takes a multipart/form-data body with 'file' and 'model' fields; the request's Content-Type is '${
      contentType === "" ? "(none)" : contentType.split(";", 1)[0]!.trim()
    }'.`
  )

/**
 * The form, with its file streamed to a temporary file (removed when the request ends) and
 * refused with 413 as soon as it passes the limit, before anything is sent upstream.
 */
const readAudioForm = (task: TranscriptionTask) =>
  Effect.gen(function*() {
    const service = yield* Transcriptions
    // The request's scope: the multipart stream runs its parts in a scope of its own, which
    // closes when the form is read, and the temporary file must outlive that.
    const scope = yield* Effect.scope
    let upload: StagedAudio | undefined
    const { fields } = yield* readMultipartForm({
      fileField: "file",
      maxFileBytes: service.maxFileBytes,
      tooLarge: () => service.tooLarge(),
      notMultipart,
      onFile: (file) =>
        service.stageUpload(file.filename, file.content).pipe(
          Effect.provideService(Scope.Scope, scope),
          Effect.map((staged) => {
            upload = staged
          })
        )
    })
    const request = decodeTranscriptionFields(task, fields)
    if (request instanceof GatewayError) return yield* request
    return { ...request, upload } satisfies AudioRequest
  })

const audioEndpoint = (task: TranscriptionTask) =>
  meteredMultipartEndpoint("audio", "audio", readAudioForm(task), (request: AudioRequest, log) =>
    Effect.flatMap(Effect.service(Transcriptions), (service) => service.run(request, request.upload, log)).pipe(
      Effect.map(({ body: { body, contentType }, outcome }) => answerWith(outcome, (headers) => HttpServerResponse.text(body, { contentType, headers })))
    ), (request, context) => transcriptionWorstCase(request.upload?.bytes)(request, context))

export const audioRoutes = [
  route("POST", "/v1/audio/transcriptions", audioEndpoint("transcribe")),
  route("POST", "/v1/audio/translations", audioEndpoint("translate"))
]
