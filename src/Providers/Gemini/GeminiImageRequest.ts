import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ImageJob } from "../../Domain/ImageRequest.ts"
import { type GeminiImageFamily, geminiImageSize, type GeminiSizeFields } from "./GeminiImageSize.ts"
import type { GeminiPart } from "./GeminiWire.ts"

/**
 * The body of one `models/{model}:generateContent` call of a Gemini image model: the prompt and
 * any input images in one user turn, image output asked for, and the aspect ratio and size in
 * `imageConfig`. Gemini makes one image per call, so a job of `n` images is `n` such calls.
 * @see https://ai.google.dev/gemini-api/docs/image-generation
 * @see https://ai.google.dev/api/generate-content#ImageConfig
 */
export interface GeminiImageBody {
  readonly contents: ReadonlyArray<{ readonly role: "user"; readonly parts: ReadonlyArray<GeminiPart> }>
  readonly generationConfig: {
    readonly responseModalities: ReadonlyArray<"TEXT" | "IMAGE">
    readonly imageConfig?: GeminiSizeFields
  }
}

/**
 * The body of Imagen's `models/{model}:predict`: one instance, `sampleCount` images.
 * @see https://ai.google.dev/gemini-api/docs/imagen
 */
export interface ImagenPredictBody {
  readonly instances: ReadonlyArray<{ readonly prompt: string }>
  readonly parameters: {
    readonly sampleCount: number
    readonly aspectRatio?: string
    readonly sampleImageSize?: string
    readonly outputOptions?: { readonly mimeType: string; readonly compressionQuality?: number }
  }
}

const sizeOf = (family: GeminiImageFamily, job: ImageJob): GeminiSizeFields => {
  const fields = geminiImageSize(family, job)
  if (fields === undefined) {
    // The catalogue check at start-up makes this unreachable for declared values.
    const param = job.size !== undefined ? "size" : job.aspectRatio !== undefined ? "aspect_ratio" : "resolution"
    throw GatewayError.invalid(`The model cannot make this '${param}'.`, param, "unsupported_value")
  }
  return fields
}

export const geminiImageBody = (job: ImageJob): GeminiImageBody => {
  const imageConfig = sizeOf("gemini", job)
  const parts: Array<GeminiPart> = [{ text: job.prompt }]
  for (const reference of job.references) {
    parts.push({ inlineData: { mimeType: reference.mimeType, data: Buffer.from(reference.bytes).toString("base64") } })
  }
  return {
    contents: [{ role: "user", parts }],
    generationConfig: {
      responseModalities: ["TEXT", "IMAGE"],
      ...(Object.keys(imageConfig).length === 0 ? {} : { imageConfig })
    }
  }
}

export const imagenPredictBody = (job: ImageJob): ImagenPredictBody => {
  const size = sizeOf("imagen", job)
  const format = job.outputFormat === undefined ? undefined : `image/${job.outputFormat}`
  return {
    instances: [{ prompt: job.prompt }],
    parameters: {
      sampleCount: job.n,
      ...(size.aspectRatio === undefined ? {} : { aspectRatio: size.aspectRatio }),
      ...(size.imageSize === undefined ? {} : { sampleImageSize: size.imageSize }),
      ...(format === undefined
        ? {}
        : { outputOptions: { mimeType: format, ...(job.outputCompression === undefined ? {} : { compressionQuality: job.outputCompression }) } })
    }
  }
}
