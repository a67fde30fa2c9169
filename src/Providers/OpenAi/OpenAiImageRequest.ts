import { GatewayError } from "../../Domain/GatewayError.ts"
import { extensionOf, type ImageMime } from "../../Domain/ImageBytes.ts"
import type { ImageJob } from "../../Domain/ImageRequest.ts"
import type { ImageTarget } from "../ImageProvider.ts"
import type { MultipartFile } from "../MultipartBody.ts"
import type { ImageProfile } from "../OpenAiCompatible/Profiles.ts"
import { type OpenAiImageFamily, openAiImageSize, type OpenAiSizeFields } from "./OpenAiImageSize.ts"

/**
 * Request bodies of OpenAI's Images API and the servers that copy it. Generations are JSON;
 * edits (a job with input images) are JSON for the GPT image models (`images` as data URLs) and
 * multipart uploads for `dall-e-2` and compatible servers.
 * @see https://platform.openai.com/docs/api-reference/images/create
 * @see https://platform.openai.com/docs/api-reference/images/createEdit
 */

export type OpenAiImageCall =
  | { readonly _tag: "Json"; readonly path: "/images/generations" | "/images/edits"; readonly body: Readonly<Record<string, unknown>> }
  | {
    readonly _tag: "Multipart"
    readonly path: "/images/edits"
    readonly fields: ReadonlyArray<readonly [string, string]>
    readonly files: ReadonlyArray<MultipartFile>
  }

const sizeFields = (job: ImageJob, family: OpenAiImageFamily, profile: ImageProfile): OpenAiSizeFields => {
  const fields = openAiImageSize(family, profile, job)
  if (fields === undefined) {
    // The catalogue check at start-up makes this unreachable for declared values.
    const param = job.size !== undefined ? "size" : job.aspectRatio !== undefined ? "aspect_ratio" : "resolution"
    throw GatewayError.invalid(`The model cannot make this '${param}'.`, param, "unsupported_value")
  }
  return fields
}

/** Every option of the job in OpenAI's field names; `response_format` for the families that take it. */
const options = (job: ImageJob, target: ImageTarget, profile: ImageProfile): Record<string, string | number> => {
  const family = target.family as OpenAiImageFamily
  const out: Record<string, string | number> = { model: target.upstreamModel, prompt: job.prompt, n: job.n, ...sizeFields(job, family, profile) }
  if (job.quality !== undefined) out["quality"] = job.quality
  if (job.style !== undefined) out["style"] = job.style
  if (job.background !== undefined) out["background"] = job.background
  if (job.outputFormat !== undefined) out["output_format"] = job.outputFormat
  if (job.outputCompression !== undefined) out["output_compression"] = job.outputCompression
  if (job.user !== undefined) out["user"] = job.user
  // GPT image models always answer base64 and refuse the parameter; the others are asked for base64.
  if (family !== "gpt-image") out["response_format"] = profile.base64Format
  return out
}

const dataUrl = (bytes: Uint8Array, mimeType: string) => `data:${mimeType};base64,${Buffer.from(bytes).toString("base64")}`

/** The one upstream call of a job: generation, or an edit of its input images. */
export const openAiImageCall = (job: ImageJob, target: ImageTarget, profile: ImageProfile): OpenAiImageCall => {
  const body = options(job, target, profile)
  if (job.references.length === 0) return { _tag: "Json", path: "/images/generations", body }
  if (target.family === "gpt-image") {
    return { _tag: "Json", path: "/images/edits", body: { ...body, images: job.references.map((r) => ({ image_url: dataUrl(r.bytes, r.mimeType) })) } }
  }
  const files = job.references.map((reference, i): MultipartFile => ({
    name: job.references.length === 1 ? "image" : "image[]",
    filename: `image-${i + 1}.${extensionOf(reference.mimeType as ImageMime)}`,
    contentType: reference.mimeType,
    bytes: reference.bytes
  }))
  return { _tag: "Multipart", path: "/images/edits", fields: Object.entries(body).map(([k, v]) => [k, String(v)] as const), files }
}
