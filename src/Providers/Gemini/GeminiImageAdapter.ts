import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, UpstreamFailure } from "../../Domain/GatewayError.ts"
import type { ImageJob } from "../../Domain/ImageRequest.ts"
import { addImageUsage, type GeneratedImage, type ImageResult, type ImageUsage } from "../../Domain/ImageResult.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { ImageProvider, ImageTarget } from "../ImageProvider.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { fromCodec } from "../OpenAi/OpenAiAdapter.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import { geminiError } from "./GeminiErrors.ts"
import { geminiImageBody, imagenPredictBody } from "./GeminiImageRequest.ts"
import { type GeminiImageAnswer, imageFromGemini, imagesFromImagen } from "./GeminiImageResponse.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/** Calls in flight for one request of several Gemini images. */
const callConcurrency = 4

/**
 * Image generation on the Gemini API: Gemini image models through `generateContent` (one call
 * per image, side by side), Imagen through `:predict` (all images in one call). Authenticated
 * with `x-goog-api-key`, on its own connection pool.
 */
export const makeGeminiImageProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const base = trimEndChars(config.base_url, "/")
    const url = (model: string, method: string) => `${base}/models/${encodeURIComponent(model)}:${method}`
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") headers["x-goog-api-key"] = Redacted.value(config.api_key)
    const spans = yield* optionalSpans

    // A filter's refusal is the client's outcome (spec 7), not the provider's failure.
    const answered = (answer: GeminiImageAnswer): Effect.Effect<{ images: ReadonlyArray<GeneratedImage>; usage?: ImageUsage }, GatewayError> => {
      switch (answer._tag) {
        case "Images":
          return Effect.succeed(answer)
        case "Refused":
          return Effect.fail(
            GatewayError.invalid(`The request was refused by the provider's content policy (${answer.reason}).`, "prompt", "content_policy_violation")
          )
        case "NoImage":
          // Another attempt may well draw one, so this is a retryable provider failure.
          return Effect.fail(
            new GatewayError({
              reason: new UpstreamFailure({ message: `The provider '${config.id}' returned no image: ${answer.what}`, provider: config.id, kind: "server" })
            })
          )
      }
    }

    const call = (target: string, body: string, read: (body: unknown) => GeminiImageAnswer) =>
      http.postJson(target, headers, body).pipe(
        Effect.flatMap((response) => jsonAnswer(config.id, response, geminiError)),
        Effect.flatMap((parsed) => answered(read(parsed)))
      )

    const gemini = (job: ImageJob, target: ImageTarget) =>
      Effect.flatMap(fromCodec(() => JSON.stringify(geminiImageBody(job))), (body) =>
        Effect.map(
          Effect.forEach(Array.from({ length: job.n }), () => call(url(target.upstreamModel, "generateContent"), body, imageFromGemini), {
            concurrency: callConcurrency
          }),
          (answers): ImageResult => {
            const usage = answers.reduce<ImageUsage | undefined>((sum, a) => addImageUsage(sum, a.usage), undefined)
            return { images: answers.flatMap((a) => a.images), ...(usage === undefined ? {} : { usage }) }
          }
        ))

    const imagen = (job: ImageJob, target: ImageTarget) =>
      Effect.flatMap(fromCodec(() => JSON.stringify(imagenPredictBody(job))), (body) =>
        Effect.map(call(url(target.upstreamModel, "predict"), body, imagesFromImagen), (answer): ImageResult => ({ images: answer.images })))

    const generate = (job: ImageJob, target: ImageTarget): Effect.Effect<ImageResult, GatewayError> =>
      (target.family === "imagen" ? imagen(job, target) : gemini(job, target)).pipe(
        spans.span("Gemini.images", { attributes: { "gen_ai.system": "gemini", "gen_ai.request.model": target.upstreamModel } })
      )

    return { id: config.id, generate } satisfies ImageProvider
  })
