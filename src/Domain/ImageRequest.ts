/**
 * The two image endpoints (spec 4.5) as the gateway works with them after decoding. Both become
 * one `ImageRequest`; each endpoint fills only its own fields, so the catalogue gate, the router
 * and the adapters see one shape, and a fallback is checked against exactly what was asked.
 */

/** `input_references[i]` of `POST /v1/images`: a URL, inline base64 or a file of the key's project. */
export type ImageReference =
  | { readonly _tag: "Url"; readonly url: string; readonly param: string }
  | { readonly _tag: "Data"; readonly mimeType: string; readonly base64: string; readonly param: string }
  | { readonly _tag: "File"; readonly fileId: string; readonly param: string }

/** What the catalogue gate checks: every option a request sets, and how many input images it has. */
export interface ImageAsk {
  readonly n: number
  /** `/v1/images/generations`: the OpenAI-style pixel size, quality, style and background. */
  readonly size?: string
  readonly style?: string
  readonly background?: string
  /** `/v1/images`: the provider-neutral aspect ratio and resolution token. */
  readonly aspectRatio?: string
  readonly resolution?: string
  readonly quality?: string
  readonly outputFormat?: string
  readonly outputCompression?: number
  readonly referenceCount: number
}

export type ImageEndpoint = "generations" | "images"

export interface ImageRequest extends ImageAsk {
  readonly endpoint: ImageEndpoint
  readonly model: string
  readonly prompt: string
  /**
   * `/v1/images/generations` only, when given; `/v1/images` always answers `b64_json`. Left out,
   * the model's family decides as OpenAI does (`imageResponseFormat`).
   */
  readonly responseFormat?: "url" | "b64_json"
  /** `user`, or its alias `safety_identifier`. */
  readonly user?: string
  readonly references: ReadonlyArray<ImageReference>
}

/** An input image, resolved to bytes and checked to be an image the providers take. */
export interface ImageInput {
  readonly bytes: Uint8Array
  readonly mimeType: string
}

/** What a provider adapter receives: the request's options with its input images resolved. */
export interface ImageJob extends ImageAsk {
  readonly prompt: string
  readonly user?: string
  readonly references: ReadonlyArray<ImageInput>
}

/** The request's field name of each option, for errors (the wire is snake_case). */
export const imageParam = {
  n: "n",
  size: "size",
  style: "style",
  background: "background",
  aspectRatio: "aspect_ratio",
  resolution: "resolution",
  quality: "quality",
  outputFormat: "output_format",
  outputCompression: "output_compression",
  referenceCount: "input_references"
} as const satisfies Record<keyof ImageAsk, string>
