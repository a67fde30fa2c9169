import type { FilePart, ImageUrlPart, UserContentPart } from "../../Domain/ChatContentPart.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { isTextMime, textMimeByExtension } from "../../Domain/TextTypes.ts"
import type { DocumentBlockWire, ImageBlockWire, UserBlockWire } from "./AnthropicWire.ts"

/**
 * User content parts -> Anthropic content blocks. Only what Anthropic can read is translated;
 * everything else is refused by path instead of being dropped.
 */

/** @see https://platform.claude.com/docs/en/build-with-claude/vision (supported image formats) */
const imageTypes: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

interface DataUrl {
  readonly mimeType: string | undefined
  readonly base64: string
}

/** `data:<mime>[;params];base64,<data>`; bare base64 has no MIME type. `undefined` when not base64. */
const parseDataUrl = (value: string): DataUrl | undefined => {
  if (!value.startsWith("data:")) return { mimeType: undefined, base64: value }
  const comma = value.indexOf(",")
  if (comma < 0) return undefined
  const meta = value.slice(5, comma).split(";")
  if (!meta.includes("base64")) return undefined
  const mimeType = meta[0]?.trim().toLowerCase()
  return { mimeType: mimeType === "" ? undefined : mimeType, base64: value.slice(comma + 1) }
}

/**
 * A data URL becomes a base64 source, an http(s) URL a url source (Anthropic fetches it).
 * @see https://platform.claude.com/docs/en/build-with-claude/vision
 */
const imageBlock = (part: ImageUrlPart, path: string): ImageBlockWire => {
  const url = part.image_url.url
  const at = `${path}.image_url.url`
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } }
  if (!url.startsWith("data:")) {
    throw GatewayError.invalid(`'${at}' must be an http(s) URL or a base64 data URL.`, at, "invalid_image_url")
  }
  const parsed = parseDataUrl(url)
  if (parsed === undefined || parsed.base64 === "") {
    throw GatewayError.invalid(`'${at}' is not a base64 data URL.`, at, "invalid_image_url")
  }
  const mediaType = parsed.mimeType === "image/jpg" ? "image/jpeg" : parsed.mimeType
  if (mediaType === undefined || !imageTypes.has(mediaType)) {
    throw GatewayError.invalid(
      `The image at '${at}' has type '${parsed.mimeType ?? "unknown"}'; this model accepts JPEG, PNG, GIF and WebP images.`,
      at,
      "unsupported_image_format"
    )
  }
  return { type: "image", source: { type: "base64", media_type: mediaType, data: parsed.base64 } }
}

const mimeOfFile = (file: FilePart["file"], fromDataUrl: string | undefined): string | undefined => {
  const declared = file.mime_type?.split(";")[0]?.trim().toLowerCase()
  if (declared !== undefined && declared !== "" && declared !== "application/octet-stream") return declared
  if (fromDataUrl !== undefined && fromDataUrl !== "application/octet-stream") return fromDataUrl
  const ext = file.filename?.includes(".") === true ? file.filename.split(".").pop()?.toLowerCase() : undefined
  if (ext === "pdf") return "application/pdf"
  return ext === undefined ? undefined : textMimeByExtension.get(ext)
}

/** Text files travel as text; a byte-order mark picks UTF-16, anything else must be UTF-8. */
const decodeText = (base64: string, at: string): string => {
  const bytes = Buffer.from(base64, "base64")
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8"
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes)
  } catch {
    throw GatewayError.invalid(`The text file at '${at}' is not valid ${encoding.toUpperCase()} text.`, at, "file_not_text")
  }
}

/**
 * PDFs become `document` blocks with a base64 source, text files `document` blocks with a text
 * source; Anthropic reads no other file type directly.
 * @see https://platform.claude.com/docs/en/build-with-claude/pdf-support
 * @see https://platform.claude.com/docs/en/build-with-claude/citations (plain-text documents)
 */
const documentBlock = (part: FilePart, path: string): DocumentBlockWire => {
  const file = part.file
  const at = `${path}.file.file_data`
  if (file.file_data === undefined) {
    // Files by id or URL are resolved to inline data before an adapter sees them.
    throw GatewayError.invalid(`The file in '${path}' must be resolved before it reaches the provider.`, path)
  }
  const parsed = parseDataUrl(file.file_data)
  if (parsed === undefined || parsed.base64 === "") throw GatewayError.invalid(`'${at}' is not base64 data.`, at, "invalid_file_data")
  const mime = mimeOfFile(file, parsed.mimeType)
  const title = file.filename === undefined || file.filename === "" ? {} : { title: file.filename }
  if (mime === "application/pdf") {
    return { type: "document", source: { type: "base64", media_type: "application/pdf", data: parsed.base64 }, ...title }
  }
  if (mime !== undefined && isTextMime(mime)) {
    return { type: "document", source: { type: "text", media_type: "text/plain", data: decodeText(parsed.base64, at) }, ...title }
  }
  throw GatewayError.unsupportedMedia(
    `This model reads PDF and text files only; the file at '${path}' is '${mime ?? "of unknown type"}'.`,
    path
  )
}

/** One user part -> its block, or `undefined` for an empty text (Anthropic rejects empty text blocks). */
export const userBlock = (part: UserContentPart, path: string): UserBlockWire | undefined => {
  switch (part.type) {
    case "text":
      return part.text === "" ? undefined : { type: "text", text: part.text }
    case "image_url":
      return imageBlock(part, path)
    case "file":
      return documentBlock(part, path)
    case "input_audio":
      throw GatewayError.unsupportedMedia(`This model does not accept audio input ('${path}').`, path)
    case "input_video":
      throw GatewayError.unsupportedMedia(`This model does not accept video input ('${path}').`, path)
  }
}
