import * as Effect from "effect/Effect"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { sniffImageMime } from "../../Domain/ImageBytes.ts"
import type { ImageInput, ImageReference } from "../../Domain/ImageRequest.ts"
import type { Files } from "../Files/Files.ts"
import type { UrlFetcher } from "../Fetch/UrlFetcher.ts"

export interface ReferenceSources {
  readonly files: Files["Service"]
  readonly fetcher: UrlFetcher["Service"]
  readonly projectId: string
  readonly maxBytes: number
}

const bytesOf = (reference: ImageReference, sources: ReferenceSources): Effect.Effect<Uint8Array, GatewayError> => {
  switch (reference._tag) {
    case "Url":
      return Effect.map(
        sources.fetcher.fetch(reference.url, { param: reference.param, accept: "image/png, image/jpeg, image/webp", maxBytes: sources.maxBytes }),
        (fetched) => fetched.bytes
      )
    case "Data":
      return Effect.succeed(Buffer.from(reference.base64, "base64"))
    case "File":
      // Another project's file is exactly as unknown as a file that never existed.
      return Effect.map(
        Effect.mapError(sources.files.bytes(sources.projectId, reference.fileId, sources.maxBytes), (error) =>
          // Only "not found" becomes the reference's 400; an outage (503) or a file over the limit (413) stays itself.
          error.reason._tag === "NotFound"
            ? GatewayError.invalid(`No such File object: ${reference.fileId}`, reference.param, "file_not_found")
            : error),
        (stored) => stored.bytes
      )
  }
}

/**
 * `input_references` as bytes: an http(s) URL through the guarded fetcher, a data URL decoded,
 * or a file of the key's project read from the store. Each must be a PNG, JPEG or WebP image,
 * judged by its bytes (never by a declared type), and within `images.max_input_image_mb`.
 */
export const resolveReferences = (
  references: ReadonlyArray<ImageReference>,
  sources: ReferenceSources
): Effect.Effect<ReadonlyArray<ImageInput>, GatewayError> =>
  Effect.forEach(
    references,
    (reference) =>
      Effect.flatMap(bytesOf(reference, sources), (bytes): Effect.Effect<ImageInput, GatewayError> => {
        if (bytes.length > sources.maxBytes) {
          return Effect.fail(
            GatewayError.tooLarge(`'${reference.param}' is larger than the ${Math.round(sources.maxBytes / (1024 * 1024))} MB input image limit.`, reference.param)
          )
        }
        const mimeType = sniffImageMime(bytes)
        if (mimeType === undefined) {
          return Effect.fail(GatewayError.invalid(`'${reference.param}' is not a PNG, JPEG or WebP image.`, reference.param, "invalid_image"))
        }
        return Effect.succeed({ bytes, mimeType })
      }),
    { concurrency: 4 }
  )
