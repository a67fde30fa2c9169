import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { ImageJob } from "../../Domain/ImageRequest.ts"
import type { ImageResult } from "../../Domain/ImageResult.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { ImageProvider, ImageTarget } from "../ImageProvider.ts"
import { jsonAnswer } from "../JsonAnswer.ts"
import { multipartBody } from "../MultipartBody.ts"
import { profileFor, profiles } from "../OpenAiCompatible/Profiles.ts"
import { badResponse } from "../ProviderErrors.ts"
import { makeProviderHttp } from "../ProviderHttp.ts"
import { fromCodec } from "./OpenAiAdapter.ts"
import { openAiImageCall } from "./OpenAiImageRequest.ts"
import { imagesFromOpenAi, openAiImageError } from "./OpenAiImageResponse.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

/**
 * `POST {base_url}/images/generations` and `/images/edits` on OpenAI and OpenAI-compatible image
 * servers, whose differences are their profile. On its own connection pool: image calls take
 * tens of seconds and must not hold the sockets chat streams wait for.
 */
export const makeOpenAiImageProvider = (config: ProviderConfig) =>
  Effect.gen(function* () {
    const http = yield* makeProviderHttp(config)
    const profile = config.kind === "openai" ? profiles["openai"]! : profileFor(config.profile)
    const base = trimEndChars(config.base_url, "/")
    const headers: Record<string, string> = { ...config.headers, accept: "application/json" }
    if (config.api_key !== undefined && Redacted.value(config.api_key) !== "") {
      const key = Redacted.value(config.api_key)
      headers[profile.authHeader] = profile.authScheme === "" ? key : `${profile.authScheme} ${key}`
    }
    const spans = yield* optionalSpans

    const generate = (job: ImageJob, target: ImageTarget): Effect.Effect<ImageResult, GatewayError> =>
      fromCodec(() => openAiImageCall(job, target, profile.image)).pipe(
        Effect.flatMap((call) => {
          if (call._tag === "Json") return http.postJson(`${base}${call.path}`, headers, JSON.stringify(call.body))
          const form = multipartBody(call.fields, call.files)
          return http.postJson(`${base}${call.path}`, { ...headers, "content-type": form.contentType }, form.body)
        }),
        Effect.flatMap((response) => jsonAnswer(config.id, response, openAiImageError)),
        Effect.flatMap((parsed) => {
          const result = imagesFromOpenAi(parsed)
          return typeof result === "string" ? Effect.fail(badResponse(config.id, result)) : Effect.succeed(result)
        }),
        spans.span("OpenAi.images", { attributes: { "gen_ai.system": "openai", "gen_ai.request.model": target.upstreamModel } })
      )

    return { id: config.id, generate } satisfies ImageProvider
  })
