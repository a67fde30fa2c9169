import type { FailureInfo, FailureKind } from "./ExtractionFailure.ts"
import { type BinaryFormat, binaryFormats, documentTypes } from "./DocumentTypes.ts"
import { decodeText } from "./PlainText.ts"
import { isTextMime, textFileNames, textMimeByExtension } from "../../../Domain/TextTypes.ts"

/**
 * Which reader a file goes to. Order of evidence:
 *  1. the content's signature (`file-type`): a document signature (PDF, OOXML, ODF, RTF,
 *     OLE compound file) always wins over what the name says;
 *  2. the file extension, which is what decides for plain text (text has no signature) and
 *     for ZIP-based formats the sniffer cannot tell apart from a plain ZIP (Apple iWork);
 *  3. the declared `mimeType`, only when the extension is missing or unknown.
 * Content that is clearly something else (an image, audio, an archive) is a mismatch when
 * the name or type claims otherwise, and unsupported when it does not.
 */
export type Detection =
  | { readonly _tag: "Text"; readonly mimeType: string; readonly text: string }
  /** `ole` is an OLE compound file (DOC, XLS, PPT or an encrypted Office file): the worker looks inside. */
  | { readonly _tag: "Binary"; readonly format: BinaryFormat | "ole" }
  | { readonly _tag: "Rejected"; readonly failure: FailureInfo }

type Claim =
  | { readonly _tag: "Document"; readonly format: BinaryFormat }
  | { readonly _tag: "Text"; readonly mimeType: string }
  | { readonly _tag: "Other"; readonly id: string; readonly label: string }

/** Names of the same content type that sniffing and extensions spell differently. */
const sameType: Readonly<Record<string, string>> = {
  jpeg: "jpg",
  jpe: "jpg",
  tiff: "tif",
  aiff: "aif",
  aifc: "aif",
  mpeg: "mpg",
  m4a: "mp4",
  m4v: "mp4",
  m4b: "mp4",
  oga: "ogg",
  opus: "ogg",
  htm: "html"
}
const typeId = (ext: string): string => sameType[ext] ?? ext

/** Non-document types worth naming when a file claims to be one. */
const otherMimeByExtension: Readonly<Record<string, string>> = {
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", bmp: "image/bmp",
  tif: "image/tiff", tiff: "image/tiff", heic: "image/heic", avif: "image/avif", ico: "image/x-icon",
  mp3: "audio/mpeg", wav: "audio/wav", flac: "audio/flac", ogg: "audio/ogg", oga: "audio/ogg", opus: "audio/opus",
  m4a: "audio/mp4", aac: "audio/aac", aif: "audio/aiff", aiff: "audio/aiff", amr: "audio/amr",
  mp4: "video/mp4", m4v: "video/mp4", mov: "video/quicktime", webm: "video/webm", mkv: "video/x-matroska",
  avi: "video/x-msvideo", mpeg: "video/mpeg", mpg: "video/mpeg",
  zip: "application/zip", gz: "application/gzip", tar: "application/x-tar", "7z": "application/x-7z-compressed",
  rar: "application/vnd.rar", exe: "application/x-msdownload", epub: "application/epub+zip"
}

const describe = (ext: string, mime: string): string => {
  const name = ext.toUpperCase()
  if (ext === "zip") return "a ZIP archive"
  if (mime.startsWith("image/")) return `a ${name} image`
  if (mime.startsWith("audio/")) return `${name} audio`
  if (mime.startsWith("video/")) return `${name} video`
  return `${name} data (${mime})`
}

const extensionOf = (filename: string): string | undefined => {
  const base = filename.split(/[\\/]/).pop() ?? ""
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? undefined : base.slice(dot + 1).toLowerCase()
}

const claimFromExtension = (filename: string): Claim | undefined => {
  const ext = extensionOf(filename)
  if (ext === undefined) {
    const bare = (filename.split(/[\\/]/).pop() ?? "").toLowerCase()
    const mime = textFileNames.get(bare)
    return mime === undefined ? undefined : { _tag: "Text", mimeType: mime }
  }
  const format = binaryFormats.find((f) => documentTypes[f].extensions.includes(ext))
  if (format !== undefined) return { _tag: "Document", format }
  const textMime = textMimeByExtension.get(ext)
  if (textMime !== undefined) return { _tag: "Text", mimeType: textMime }
  const otherMime = otherMimeByExtension[ext]
  if (otherMime !== undefined) return { _tag: "Other", id: typeId(ext), label: describe(ext, otherMime) }
  return undefined
}

const claimFromMime = (declared: string | undefined): Claim | undefined => {
  const mime = declared?.split(";")[0]?.trim().toLowerCase()
  if (mime === undefined || mime === "" || mime === "application/octet-stream") return undefined
  const format = binaryFormats.find((f) => documentTypes[f].mimeType === mime || documentTypes[f].aliases.includes(mime))
  if (format !== undefined) return { _tag: "Document", format }
  if (isTextMime(mime)) return { _tag: "Text", mimeType: mime }
  const ext = Object.keys(otherMimeByExtension).find((e) => otherMimeByExtension[e] === mime) ?? mime.split("/")[1] ?? mime
  return { _tag: "Other", id: typeId(ext), label: describe(ext, mime) }
}

const claimLabel = (claim: Claim): string =>
  claim._tag === "Document" ? documentTypes[claim.format].label : claim._tag === "Text" ? "text" : claim.label

const reject = (kind: FailureKind, reason: string): Detection => ({ _tag: "Rejected", failure: { kind, reason } })

/** Signatures of document formats, by file-type's extension; templates and macro-enabled variants read the same. */
const sniffedDocuments: Readonly<Record<string, BinaryFormat | "ole">> = {
  pdf: "pdf",
  docx: "docx",
  docm: "docx",
  dotx: "docx",
  dotm: "docx",
  pptx: "pptx",
  pptm: "pptx",
  ppsx: "pptx",
  ppsm: "pptx",
  potx: "pptx",
  potm: "pptx",
  xlsx: "xlsx",
  xlsm: "xlsx",
  xltx: "xlsx",
  xltm: "xlsx",
  odt: "odt",
  ott: "odt",
  odp: "odp",
  otp: "odp",
  ods: "ods",
  ots: "ods",
  rtf: "rtf",
  cfb: "ole",
  pages: "pages",
  key: "key",
  numbers: "numbers"
}
const iworkFormats: ReadonlyArray<BinaryFormat | "ole"> = ["pages", "key", "numbers"]

export const detectFormat = async (input: {
  readonly bytes: Uint8Array
  readonly filename: string
  readonly mimeType?: string | undefined
}): Promise<Detection> => {
  const { bytes, filename } = input
  if (bytes.length === 0) return reject("empty", "the file is empty (0 bytes)")
  const claim = claimFromExtension(filename) ?? claimFromMime(input.mimeType)
  // Loaded on first use: most gateway processes never detect a document's format.
  const { fileTypeFromBuffer } = await import("file-type")
  const sniffed = await fileTypeFromBuffer(bytes).catch(() => undefined)

  const document = sniffed === undefined ? undefined : sniffedDocuments[sniffed.ext]
  if (document !== undefined) {
    // The sniffer tells iWork applications apart by optional bundle parts; a name that says
    // which one it is knows better.
    const iworkClaim = iworkFormats.includes(document) && claim?._tag === "Document" && iworkFormats.includes(claim.format)
    return { _tag: "Binary", format: iworkClaim ? claim.format : document }
  }

  if (sniffed?.ext === "zip") {
    // OOXML/ODF files the sniffer could not place, and iWork bundles, are ZIP archives: the
    // reader for the claimed format checks the parts and reports a damaged file if they are missing.
    if (claim?._tag === "Document" && documentTypes[claim.format].zipped) return { _tag: "Binary", format: claim.format }
    if (claim === undefined || (claim._tag === "Other" && claim.id === "zip")) {
      return reject("unsupported", "the content is a ZIP archive, which is not a supported document type")
    }
    return reject("mismatch", `the content is a ZIP archive, not ${claimLabel(claim)}`)
  }

  // Text has no signature; a few text files begin with bytes some binary signature also uses
  // ("BM", "ID3", "MZ"), so plain-text content outranks a non-document sniff.
  const text = decodeText(bytes)
  if (text !== undefined && (sniffed === undefined || sniffed.ext === "xml" || claim?._tag !== "Other")) {
    if (claim === undefined) return { _tag: "Text", mimeType: sniffed?.ext === "xml" ? "application/xml" : "text/plain", text }
    if (claim._tag === "Text") return { _tag: "Text", mimeType: claim.mimeType, text }
    return reject("mismatch", `the content is plain text, not ${claimLabel(claim)}`)
  }

  if (sniffed !== undefined) {
    const what = describe(sniffed.ext, sniffed.mime)
    if (claim === undefined || (claim._tag === "Other" && claim.id === typeId(sniffed.ext))) {
      return reject("unsupported", `the content is ${what}, which is not a supported document type`)
    }
    return reject("mismatch", `the content is ${what}, not ${claimLabel(claim)}`)
  }

  if (claim === undefined) return reject("unsupported", "the content is not a recognised document or text format")
  switch (claim._tag) {
    case "Document":
      return reject("corrupt", `the content is not a valid ${documentTypes[claim.format].name}; it is damaged or unreadable`)
    case "Text":
      return reject("mismatch", "the content is binary data, not text")
    case "Other":
      return reject("unsupported", `${claim.label} is not a supported document type`)
  }
}
