import { GatewayError } from "./GatewayError.ts"

/**
 * The audio containers the speech-to-text endpoints accept (spec 4.2: flac, mp3, mp4, mpeg,
 * mpga, m4a, ogg, wav, webm), told apart by their bytes. `mp3` is any bare MPEG audio stream
 * (Layer III or II: `.mp3`, `.mpga`, `.mpeg`), `mpeg` an MPEG program stream, `mp4` the ISO
 * base media family (`.mp4`, `.m4a`), `ogg` Ogg with Vorbis or Opus.
 */
export type AudioFormat = "flac" | "mp3" | "mp4" | "mpeg" | "ogg" | "wav" | "webm"

export interface AudioFormatInfo {
  /** The extension an upstream that goes by file names (OpenAI) recognises. */
  readonly extension: string
  readonly mimeType: string
  /** File extensions that may hold this format. */
  readonly extensions: ReadonlyArray<string>
  readonly label: string
}

export const audioFormats: Readonly<Record<AudioFormat, AudioFormatInfo>> = {
  flac: { extension: "flac", mimeType: "audio/flac", extensions: ["flac"], label: "FLAC" },
  mp3: { extension: "mp3", mimeType: "audio/mpeg", extensions: ["mp3", "mpga", "mpeg", "mpg", "mp2"], label: "MPEG audio" },
  mp4: { extension: "m4a", mimeType: "audio/mp4", extensions: ["mp4", "m4a", "m4b"], label: "MP4 audio" },
  mpeg: { extension: "mpeg", mimeType: "video/mpeg", extensions: ["mpeg", "mpg"], label: "MPEG program stream" },
  ogg: { extension: "ogg", mimeType: "audio/ogg", extensions: ["ogg", "oga", "opus"], label: "Ogg" },
  wav: { extension: "wav", mimeType: "audio/wav", extensions: ["wav", "wave"], label: "WAV" },
  webm: { extension: "webm", mimeType: "audio/webm", extensions: ["webm", "weba"], label: "WebM" }
}

export const acceptedFormatList = "flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm"

/** `file-type`'s extension for a signature -> the accepted format it is, if any. */
const sniffedFormats: Readonly<Record<string, AudioFormat>> = {
  flac: "flac",
  mp3: "mp3",
  mp2: "mp3",
  mp1: "mp3",
  mpg: "mpeg",
  mp4: "mp4",
  m4a: "mp4",
  m4b: "mp4",
  ogg: "ogg",
  oga: "ogg",
  opus: "ogg",
  wav: "wav",
  webm: "webm"
}

/** How a signature the endpoints refuse is named in the message. */
const refusedNames: Readonly<Record<string, string>> = {
  aif: "AIFF audio",
  aac: "raw AAC (ADTS) audio",
  amr: "AMR audio",
  mov: "a QuickTime movie",
  mkv: "a Matroska file",
  avi: "an AVI file",
  wma: "Windows Media audio",
  asf: "Windows Media audio",
  pdf: "a PDF document",
  zip: "a ZIP archive",
  png: "a PNG image",
  jpg: "a JPEG image",
  gif: "a GIF image",
  webp: "a WebP image",
  bmp: "a BMP image"
}

export type AudioFailureKind = "corrupt" | "unsupported" | "empty" | "mismatch"

/** The stable `error.code` of each kind; the same codes as documents (see README, Errors). */
export const audioFailureCodes: Readonly<Record<AudioFailureKind, string>> = {
  corrupt: "file_corrupt",
  unsupported: "file_unsupported",
  empty: "file_empty",
  mismatch: "file_type_mismatch"
}

/** A 400 naming `param` (`file`, or `url` for fetched audio). */
export const audioFileError = (kind: AudioFailureKind, message: string, param = "file"): GatewayError =>
  GatewayError.invalid(message, param, audioFailureCodes[kind])

export const extensionOf = (filename: string): string | undefined => {
  const base = filename.split(/[\\/]/).pop() ?? ""
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? undefined : base.slice(dot + 1).toLowerCase()
}

/** Every accepted format whose extensions include the name's; empty for an unknown or missing extension. */
const formatsNamedBy = (filename: string): ReadonlyArray<AudioFormat> => {
  const ext = extensionOf(filename)
  if (ext === undefined) return []
  return (Object.keys(audioFormats) as Array<AudioFormat>).filter((f) => audioFormats[f].extensions.includes(ext))
}

export type Classification =
  | { readonly _tag: "Accepted"; readonly format: AudioFormat }
  | { readonly _tag: "Rejected"; readonly kind: AudioFailureKind; readonly message: string }

/**
 * Which accepted format a file is, from its signature (`sniffed`: file-type's extension, or
 * undefined when no signature matched); the name is only a hint. Bytes of one accepted format
 * named as another are a mismatch, anything with an audio name but no recognisable content is
 * corrupt, and the rest is unsupported. The container's own checks (truncation, a decodable
 * duration) come after this, on the bytes.
 */
export const classifyAudio = (input: { readonly filename: string; readonly size: number; readonly sniffed: string | undefined }): Classification => {
  const { filename, size, sniffed } = input
  const named = formatsNamedBy(filename)
  const ext = extensionOf(filename)
  if (size === 0) return { _tag: "Rejected", kind: "empty", message: `The audio file '${filename}' is empty.` }
  const format = sniffed === undefined ? undefined : sniffedFormats[sniffed]
  if (format !== undefined) {
    if (named.length > 0 && !named.includes(format)) {
      return {
        _tag: "Rejected",
        kind: "mismatch",
        message: `The file '${filename}' is named as .${ext} but its content is ${audioFormats[format].label}; rename it or send the right file.`
      }
    }
    return { _tag: "Accepted", format }
  }
  if (sniffed !== undefined) {
    const what = refusedNames[sniffed] ?? `${sniffed.toUpperCase()} data`
    if (named.length > 0) {
      return { _tag: "Rejected", kind: "mismatch", message: `The file '${filename}' is named as .${ext} but its content is ${what}.` }
    }
    return { _tag: "Rejected", kind: "unsupported", message: `The file '${filename}' is ${what}, not a supported audio format (${acceptedFormatList}).` }
  }
  if (named.length > 0) {
    return { _tag: "Rejected", kind: "corrupt", message: `The file '${filename}' is not valid ${audioFormats[named[0]!].label} data; it may be damaged.` }
  }
  return { _tag: "Rejected", kind: "unsupported", message: `The file '${filename}' is not in a supported audio format (${acceptedFormatList}).` }
}
