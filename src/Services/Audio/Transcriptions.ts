import { tmpdir } from "node:os"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { audioFileError } from "../../Domain/AudioFormat.ts"
import { GatewayError, UpstreamFailure } from "../../Domain/GatewayError.ts"
import type { MeasuredAudio, TranscriptionRequest } from "../../Domain/Transcription.ts"
import { billedSeconds } from "../../Domain/TranscriptionCost.ts"
import { planTranscription } from "../../Domain/TranscriptionGate.ts"
import { renderTranscript } from "../../Domain/TranscriptionWire.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UrlFetcher, UrlFetchCode } from "../Fetch/UrlFetcher.ts"
import { Extractor } from "../Files/Extractor.ts"
import { ProviderRouter } from "../Routing/ProviderRouter.ts"
import type { AttemptLog, Served } from "../Routing/RoutedAttempts.ts"
import { type Answered, type Outcome, Spent, spentOnFailure } from "../Usage/RequestOutcome.ts"
import { audioProbeJob } from "./AudioProbeJob.ts"
import { type StagedAudio, stageBytes, stageStream } from "./AudioStaging.ts"

export type { StagedAudio } from "./AudioStaging.ts"

export interface TranscriptionBody {
  readonly body: string
  readonly contentType: string
}

/**
 * The speech-to-text use case (spec 4.2, 4.3): the upload or URL staged to a temporary file,
 * the model and its plan checked before the audio is looked at, the audio identified and
 * measured (which sets the billed seconds), the router, and the body in the client's format.
 * HTTP concerns stay in the route.
 */
export class Transcriptions extends Context.Service<
  Transcriptions,
  {
    /** `audio.max_file_mb` in bytes. */
    readonly maxFileBytes: number
    readonly tooLarge: (param?: string) => GatewayError
    /** Streams an upload to a temporary file for the request's lifetime, refusing it past the limit. */
    readonly stageUpload: <E>(filename: string, content: Stream.Stream<Uint8Array, E>) => Effect.Effect<StagedAudio, GatewayError | E, Scope.Scope>
    readonly run: (
      request: TranscriptionRequest,
      upload: StagedAudio | undefined,
      log: AttemptLog
    ) => Effect.Effect<Outcome<TranscriptionBody>, GatewayError | Spent, Scope.Scope>
  }
>()("gateway/Transcriptions") {
  static readonly layer = Layer.effect(
    Transcriptions,
    Effect.gen(function*() {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const fetcher = yield* UrlFetcher
      const extractor = yield* Extractor
      const settings = (yield* GatewayConfigFile).config.audio
      const spans = yield* optionalSpans
      const dir = settings.temp_dir ?? tmpdir()
      const maxFileBytes = settings.max_file_mb * 1024 * 1024
      const tooLarge = (param = "file") => GatewayError.tooLarge(`The audio file is larger than the ${settings.max_file_mb} MB limit.`, param)

      const stageUpload = <E>(filename: string, content: Stream.Stream<Uint8Array, E>) =>
        stageStream(dir, filename === "" ? "audio" : filename, content, maxFileBytes, tooLarge)

      const fetchUrl = (url: string) =>
        fetcher.fetch(url, { param: "url", maxBytes: maxFileBytes, accept: "audio/*, video/webm, video/mp4, video/mpeg, */*;q=0.5" }).pipe(
          // Spec part 8: audio over the limit is a 413, wherever it comes from.
          Effect.mapError((error) =>
            error.reason._tag === "InvalidRequest" && error.reason.code === UrlFetchCode.tooLarge ? tooLarge("url") : error
          ),
          Effect.flatMap((fetched) => stageBytes(dir, fetched.filename ?? "audio", fetched.bytes))
        )

      // Probing walks the whole file: in an extraction worker, bounded by files.extraction's time
      // and memory (a file past them is a 400 naming the setting), never on the event loop.
      const probe = (staged: StagedAudio, param: string) =>
        extractor.runJob(audioProbeJob, { path: staged.path, filename: staged.filename }, { label: staged.filename }).pipe(
          // The audio's own field, not a document's: the worker's verdict names the setting it passed.
          Effect.mapError((error) => (error.reason._tag === "InvalidRequest" ? GatewayError.invalid(error.reason.message, param, error.reason.code) : error))
        )

      const measure = (staged: StagedAudio, param: string) =>
        Effect.flatMap(probe(staged, param), (probe): Effect.Effect<MeasuredAudio, GatewayError> => {
          if (probe._tag === "Rejected") {
            return Effect.andThen(
              probe.detail === undefined ? Effect.void : Effect.logDebug(`audio rejected: ${probe.detail}`),
              Effect.fail(audioFileError(probe.kind, probe.message, param))
            )
          }
          return Effect.succeed({ ...staged, format: probe.format, durationSeconds: probe.durationSeconds })
        }).pipe(spans.span("Transcriptions.measure"))

      const run = Effect.fnUntraced(function*(request: TranscriptionRequest, upload: StagedAudio | undefined, log: AttemptLog) {
        const model = (yield* catalog.require(request.model, "transcription")).config
        const plan = planTranscription(request, model)
        if (plan instanceof GatewayError) return yield* plan
        if (upload !== undefined && request.url !== undefined) {
          return yield* GatewayError.invalid("Send either 'file' or 'url', not both.", "url")
        }
        if (upload === undefined && request.url === undefined) {
          return yield* GatewayError.invalid(
            request.task === "transcribe" ? "Missing required parameter: 'file' (or 'url')." : "Missing required parameter: 'file'.",
            "file"
          )
        }
        const staged = upload ?? (yield* fetchUrl(request.url!))
        const audio = yield* measure(staged, upload === undefined ? "url" : "file")
        // Billed by the second of audio measured: from here on a failure is billed with them.
        const units = billedSeconds(audio.durationSeconds)
        const used = (served: Served | undefined): Answered => ({ _tag: "Answered", served, usage: undefined, units, fixedCostNanoUsd: undefined, translation: undefined })
        const { result, served } = yield* spentOnFailure(router.transcribe(model, request, audio, log), () => used(undefined))
        const outcome = used(served)
        const rendered = renderTranscript(result, { request, durationSeconds: audio.durationSeconds, billedSeconds: units })
        if ("missing" in rendered) {
          const error = new GatewayError({
            reason: new UpstreamFailure({
              message: `The provider '${served.provider}' sent a transcript without ${rendered.missing}.`,
              provider: served.provider,
              kind: "bad_response"
            })
          })
          return yield* Effect.fail(new Spent(error, outcome))
        }
        return { body: rendered, outcome } satisfies Outcome<TranscriptionBody>
      }, spans.span("Transcriptions.run"))

      return Transcriptions.of({ maxFileBytes, tooLarge, stageUpload, run })
    })
  )
}
