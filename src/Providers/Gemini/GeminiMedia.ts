import type { FilePart, ImageUrlPart, InputAudioPart, InputVideoPart } from "../../Domain/ChatContentPart.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { acceptedVideoLinkForms, canonicalVideoUrl } from "./GeminiVideoUrl.ts"
import type { GeminiPart } from "./GeminiWire.ts"

/**
 * Media content parts -> Gemini `inlineData` / `fileData` parts. `path` is the part's request path
 * (`messages[i].content[j]`); every refusal names the field under it.
 * @see https://ai.google.dev/gemini-api/docs/file-input-methods
 */

interface DataUrl {
  readonly mimeType: string
  readonly data: string
}

/** `data:<mime>[;param]*;base64,<data>`; `undefined` when the string is not one. */
export const parseDataUrl = (value: string): DataUrl | undefined => {
  if (!value.startsWith("data:")) return undefined
  const comma = value.indexOf(",")
  if (comma < 0) return undefined
  const header = value.slice(5, comma).split(";")
  const mimeType = header[0]?.trim().toLowerCase() ?? ""
  if (header.at(-1)?.trim().toLowerCase() !== "base64" || !/^[a-z0-9.+-]+\/[a-z0-9.+*-]+$/.test(mimeType)) return undefined
  return { mimeType, data: value.slice(comma + 1) }
}

const inline = (mimeType: string, data: string): GeminiPart => ({ inlineData: { mimeType, data } })

/**
 * Gemini's `fileData` needs a Files API, Cloud Storage or pre-registered URI, so an image on the
 * web would have to be fetched first; until that goes through the gateway's guarded fetcher the
 * client is asked for a data URL.
 * @see https://ai.google.dev/gemini-api/docs/image-understanding
 */
export const imagePart = (part: ImageUrlPart, path: string): GeminiPart => {
  const at = `${path}.image_url.url`
  const url = part.image_url.url
  const parsed = parseDataUrl(url)
  if (parsed !== undefined) {
    if (!parsed.mimeType.startsWith("image/")) throw GatewayError.invalid(`'${at}' must be an image data URL (got '${parsed.mimeType}').`, at)
    return inline(parsed.mimeType, parsed.data)
  }
  if (url.startsWith("data:")) throw GatewayError.invalid(`'${at}' is not a valid base64 data URL.`, at)
  throw GatewayError.invalid(`'${at}': this model takes images only as base64 data URLs (data:image/png;base64,...), not as links.`, at, "unsupported_content")
}

/** @see https://ai.google.dev/gemini-api/docs/audio#supported-formats */
const audioFormats: ReadonlySet<string> = new Set(["wav", "mp3", "aiff", "aac", "ogg", "flac"])

export const audioPart = (part: InputAudioPart, path: string): GeminiPart => {
  const format = part.input_audio.format.toLowerCase()
  if (!audioFormats.has(format)) {
    const at = `${path}.input_audio.format`
    throw GatewayError.invalid(`'${at}' must be one of ${[...audioFormats].join(", ")} for this model (got '${part.input_audio.format}').`, at)
  }
  const data = parseDataUrl(part.input_audio.data)?.data ?? part.input_audio.data
  return inline(`audio/${format}`, data)
}

/** Spec 2.2 video formats and their MIME types; `video/quicktime` is the registered name of mov. */
const videoMime: Readonly<Record<string, string>> = { mp4: "video/mp4", mpeg: "video/mpeg", mov: "video/mov", webm: "video/webm" }
const videoMimeFromPrefix: Readonly<Record<string, string>> = {
  "video/mp4": "video/mp4",
  "video/mpeg": "video/mpeg",
  "video/mov": "video/mov",
  "video/quicktime": "video/mov",
  "video/webm": "video/webm"
}

/**
 * A link becomes `fileData` with the canonical watch URL and no MIME type, as in the
 * documented request; inline data becomes `inlineData` with the MIME from `format` or the
 * data URL prefix.
 * @see https://ai.google.dev/gemini-api/docs/video-understanding
 */
export const videoPart = (part: InputVideoPart, path: string): GeminiPart => {
  const video = part.input_video
  if (video.url !== undefined) {
    const at = `${path}.input_video.url`
    const canonical = canonicalVideoUrl(video.url)
    if (canonical === undefined) {
      throw GatewayError.invalid(`'${at}' must be a public video link of the form ${acceptedVideoLinkForms}.`, at, "invalid_video_url")
    }
    return { fileData: { fileUri: canonical } }
  }
  const at = `${path}.input_video.data`
  const data = video.data ?? ""
  const parsed = parseDataUrl(data)
  if (parsed === undefined && data.startsWith("data:")) throw GatewayError.invalid(`'${at}' is not a valid base64 data URL.`, at)
  const fromFormat = video.format === undefined ? undefined : videoMime[video.format]
  if (parsed !== undefined) {
    const fromPrefix = videoMimeFromPrefix[parsed.mimeType]
    if (fromPrefix === undefined) throw GatewayError.invalid(`'${at}' has the type '${parsed.mimeType}'; expected mp4, mpeg, mov or webm video.`, at)
    if (fromFormat !== undefined && fromFormat !== fromPrefix) {
      const formatAt = `${path}.input_video.format`
      throw GatewayError.invalid(`'${formatAt}' ('${video.format}') contradicts the data URL type '${parsed.mimeType}'.`, formatAt)
    }
    return inline(fromPrefix, parsed.data)
  }
  if (fromFormat === undefined) {
    const formatAt = `${path}.input_video.format`
    throw GatewayError.invalid(`'${formatAt}' is required when '${at}' is plain base64 (one of mp4, mpeg, mov, webm).`, formatAt)
  }
  return inline(fromFormat, data)
}

/** Text formats read as-is (spec 2.3): every `text/*` type and the known structured ones. */
const structuredText: ReadonlySet<string> = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/graphql",
  "application/x-protobuf",
  "application/javascript",
  "application/typescript",
  "application/x-sh",
  "application/sql"
])
const byExtension: Readonly<Record<string, string>> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  graphql: "application/graphql",
  proto: "application/x-protobuf"
}

/**
 * Inline documents: PDF goes as `application/pdf`; text files go as `text/plain`, the one text
 * type every Gemini model documents, because their bytes are the text. Anything else (office
 * files arrive here only when extraction did not run) is refused naming the part.
 * @see https://ai.google.dev/gemini-api/docs/document-processing
 */
export const filePart = (part: FilePart, path: string): GeminiPart => {
  const file = part.file
  if (file.file_data === undefined) {
    // Files by id or URL are resolved to inline data before an adapter sees them.
    throw GatewayError.invalid(`The file in '${path}' must be resolved before it reaches the provider.`, `${path}.file`)
  }
  const parsed = parseDataUrl(file.file_data)
  const extension = file.filename?.split(".").pop()?.toLowerCase()
  const mimeType = (file.mime_type ?? parsed?.mimeType ?? (extension === undefined ? undefined : byExtension[extension]))?.toLowerCase()
  const data = parsed?.data ?? file.file_data
  if (mimeType === "application/pdf") return inline(mimeType, data)
  if (mimeType !== undefined && (mimeType.startsWith("text/") || structuredText.has(mimeType))) return inline("text/plain", data)
  throw GatewayError.invalid(
    mimeType === undefined
      ? `The type of the file in '${path}' could not be determined; set 'mime_type'.`
      : `The file type '${mimeType}' in '${path}' is not supported by this model; send PDF or text.`,
    `${path}.file`,
    "unsupported_file_type"
  )
}
