import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { type ImageMime, sniffImageMime } from "../../Domain/ImageBytes.ts"
import { checkImageAsk } from "../../Domain/ImageGate.ts"
import { imageResponseFormat } from "../../Domain/ImageModel.ts"
import type { ImageJob, ImageRequest } from "../../Domain/ImageRequest.ts"
import type { GeneratedImage, ImageResult } from "../../Domain/ImageResult.ts"
import { type ImageObjectWire, imagesUsageWire, reportedSettings, tokenUsageWire } from "../../Domain/ImageResultWire.ts"
import { badResponse } from "../../Providers/ProviderErrors.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../Fetch/UrlFetcher.ts"
import { Files } from "../Files/Files.ts"
import type { Served } from "../Routing/RoutedAttempts.ts"
import { ProviderRouter } from "../Routing/ProviderRouter.ts"
import type { AttemptLog } from "../Routing/RoutedAttempts.ts"
import { type Answered, type Outcome, type Spent, spentOnFailure } from "../Usage/RequestOutcome.ts"
import { ImageLinks, type LinkedImage } from "./ImageLinks.ts"
import { resolveReferences } from "./ImageReferences.ts"

export type ImagesBody = Readonly<Record<string, unknown>>

/**
 * Both image endpoints: catalogue lookup and the gate of spec 4.5 before anything else, the input
 * references resolved, the router (retries, fallbacks to models that accept the same options),
 * then the answer in the endpoint's shape: `{created, data}` with links or base64 for
 * `/v1/images/generations`, `{id, created, model, data, size?, usage}` for `/v1/images`.
 * Images the upstream only links to are downloaded through the guarded fetcher.
 */
export class Images extends Context.Service<
  Images,
  {
    readonly run: (request: ImageRequest, log: AttemptLog, projectId: string, baseUrl: string) => Effect.Effect<Outcome<ImagesBody>, GatewayError | Spent>
  }
>()("gateway/Images") {
  static readonly layer = Layer.effect(
    Images,
    Effect.gen(function* () {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const files = yield* Files
      const fetcher = yield* UrlFetcher
      const links = yield* ImageLinks
      const settings = (yield* GatewayConfigFile).config.images
      const spans = yield* optionalSpans
      const maxInputBytes = settings.max_input_image_mb * 1024 * 1024

      /** The bytes of every image, for links: downloaded when the upstream linked to it, and checked to be an image. */
      const bytesOf = (image: GeneratedImage, served: Served): Effect.Effect<LinkedImage, GatewayError> => {
        const fetched = image.data._tag === "Base64"
          ? Effect.succeed(Buffer.from(image.data.base64, "base64") as Uint8Array)
          : Effect.map(
            Effect.mapError(fetcher.fetch(image.data.url, { param: "data", accept: "image/*" }), () =>
              badResponse(served.provider, "the image it linked to could not be downloaded")),
            (f) => f.bytes
          )
        return Effect.flatMap(fetched, (bytes) => {
          const mimeType: ImageMime | undefined = sniffImageMime(bytes)
          return mimeType === undefined ? Effect.fail(badResponse(served.provider, "an image was not PNG, JPEG or WebP")) : Effect.succeed({ bytes, mimeType })
        })
      }

      const base64Of = (image: GeneratedImage, served: Served): Effect.Effect<string, GatewayError> =>
        image.data._tag === "Base64" ? Effect.succeed(image.data.base64) : Effect.map(bytesOf(image, served), (i) => Buffer.from(i.bytes).toString("base64"))

      const withRevised = <A extends object>(image: GeneratedImage, object: A): A & { revised_prompt?: string } =>
        image.revisedPrompt === undefined ? object : { ...object, revised_prompt: image.revisedPrompt }

      const dataOf = (format: "url" | "b64_json", result: ImageResult, served: Served, projectId: string, baseUrl: string) =>
        format === "url"
          ? Effect.flatMap(Effect.forEach(result.images, (image) => bytesOf(image, served), { concurrency: 4 }), (images) =>
            Effect.map(links.publish(projectId, images, baseUrl), (urls) =>
              result.images.map((image, i): ImageObjectWire => withRevised(image, { url: urls[i]! }))))
          : Effect.forEach(result.images, (image) => Effect.map(base64Of(image, served), (b64_json): ImageObjectWire => withRevised(image, { b64_json })), {
            concurrency: 4
          })

      const run = Effect.fnUntraced(function* (request: ImageRequest, log: AttemptLog, projectId: string, baseUrl: string) {
        const model = (yield* catalog.require(request.model, "image")).config
        const violation = checkImageAsk(request, model)
        if (violation !== undefined) return yield* violation
        const references = yield* resolveReferences(request.references, { files, fetcher, projectId, maxBytes: maxInputBytes })
        const { endpoint: _endpoint, model: _model, responseFormat: _format, references: _references, ...ask } = request
        const job: ImageJob = { ...ask, references }
        const { result, served } = yield* router.images(model, job, log)
        const outcome: Answered = {
          _tag: "Answered",
          served,
          usage: result.usage === undefined ? undefined : { promptTokens: result.usage.inputTokens, completionTokens: result.usage.outputTokens },
          units: result.images.length,
          fixedCostNanoUsd: undefined,
          translation: undefined
        }
        // The images were made: a failure from here on is billed for them.
        const data = yield* spentOnFailure(dataOf(imageResponseFormat(request, model), result, served, projectId, baseUrl), () => outcome)
        const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (request.endpoint === "generations") {
          const body: ImagesBody = { created, data, ...reportedSettings(result), ...(result.usage === undefined ? {} : { usage: tokenUsageWire(result.usage) }) }
          return { body, outcome } satisfies Outcome<ImagesBody>
        }
        const pricing = catalog.find(served.model)?.config.pricing ?? model.pricing
        const body: ImagesBody = {
          id: Ids.responseId(),
          created,
          model: served.model,
          data,
          ...(result.size === undefined ? {} : { size: result.size }),
          usage: imagesUsageWire(result, pricing)
        }
        return { body, outcome } satisfies Outcome<ImagesBody>
      }, spans.span("Images.run"))

      return Images.of({ run })
    })
  )
}
