import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { fileTypeFromFile } from "file-type"
import { type AudioFailureKind, type AudioFormat, audioFormats, classifyAudio } from "../../Domain/AudioFormat.ts"
import { type ByteSource, withFileSource } from "./ByteSource.ts"
import { MpegFrameWalker } from "./MpegAudioFrames.ts"
import { programStreamAudio } from "./MpegProgramStream.ts"
import { waveDataMissing } from "./WaveChunks.ts"
import { webmTimeline } from "./WebmBlocks.ts"

export type ProbeResult =
  | { readonly _tag: "Measured"; readonly format: AudioFormat; readonly durationSeconds: number; readonly bytes: number }
  | { readonly _tag: "Rejected"; readonly kind: AudioFailureKind; readonly message: string; readonly detail?: string }

const reject = (kind: AudioFailureKind, message: string, detail?: string): ProbeResult => ({
  _tag: "Rejected",
  kind,
  message,
  ...(detail === undefined ? {} : { detail })
})

/** Where the first MPEG audio frame can start: after an ID3v2 tag, if there is one. */
const id3v2End = async (source: ByteSource): Promise<number> => {
  const head = await source.read(0, 10)
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f)
  return 10 + size + (head[5]! & 0x10 ? 10 : 0)
}

/** Every frame of a bare MPEG audio stream, for the frame count and a cut-off last frame. */
const walkMpegAudio = async (source: ByteSource): Promise<MpegFrameWalker> => {
  const walker = new MpegFrameWalker()
  for (let p = await id3v2End(source); p < source.size && !walker.stopped; p += 256 * 1024) {
    walker.feed(await source.read(p, 256 * 1024))
  }
  return walker
}

/** A container's own check, beyond what the metadata reader looks at; a message when it fails. */
const integrity = async (format: AudioFormat, path: string, declaredSeconds: number): Promise<string | undefined> =>
  withFileSource(path, async (source) => {
    if (format === "wav") {
      const missing = await waveDataMissing(source)
      return missing > 0 ? `its data chunk declares ${missing} more bytes of audio than the file holds (the file was cut off)` : undefined
    }
    if (format === "mp3") {
      const walker = await walkMpegAudio(source)
      if (walker.frames === 0) return "it holds no complete MPEG audio frame"
      if (walker.missing > 0) return `its last frame is cut off (${walker.missing} bytes are missing)`
      // A tag that promises more frames than there are: cut off at a frame boundary.
      if (!walker.stopped && declaredSeconds - walker.seconds > 0.5) {
        return `its header promises ${declaredSeconds.toFixed(2)} s but the frames hold ${walker.seconds.toFixed(2)} s (the file was cut off)`
      }
    }
    return undefined
  })

const measure = async (format: AudioFormat, path: string, size: number): Promise<{ seconds: number | undefined; problem?: string }> => {
  if (format === "mpeg") {
    const audio = await withFileSource(path, programStreamAudio)
    if (!audio.hasAudio) return { seconds: undefined, problem: "no-audio" }
    return audio.truncated ? { seconds: audio.seconds, problem: "its last packet is cut off" } : { seconds: audio.seconds }
  }
  // music-metadata holds about 20 MB once imported: loaded by the first audio request, not at start-up.
  const { parseStream } = await import("music-metadata")
  const metadata = await parseStream(
    createReadStream(path, { highWaterMark: 256 * 1024 }),
    { mimeType: sniffMime[format], size },
    { duration: true, skipCovers: true, skipPostHeaders: true }
  )
  if (metadata.format.hasAudio === false) return { seconds: undefined, problem: "no-audio" }
  let seconds = metadata.format.duration
  if (format === "webm" && (seconds === undefined || !Number.isFinite(seconds))) {
    const timeline = await withFileSource(path, webmTimeline)
    if (timeline.truncated) return { seconds: timeline.seconds, problem: "its last block is cut off" }
    seconds = timeline.seconds
  }
  const problem = seconds === undefined ? undefined : await integrity(format, path, seconds)
  return problem === undefined ? { seconds } : { seconds, problem }
}

// The MIME type that selects music-metadata's parser for each format.
const sniffMime: Readonly<Record<AudioFormat, string>> = {
  flac: "audio/flac",
  mp3: "audio/mpeg",
  mp4: "audio/mp4",
  mpeg: "video/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
  webm: "audio/webm"
}

/**
 * Identifies and measures an audio file on disk: the format from its signature (`file-type`;
 * the name is only a hint, see `classifyAudio`), the duration from the container
 * (`music-metadata`, which reads FLAC, MPEG audio with or without Xing/VBRI headers, MP4, Ogg
 * Vorbis and Opus, WAV and WebM), and, where a header can promise more than the file holds,
 * the gateway's own checks (WAV data size, MPEG frames). Two cases the library does not cover
 * are measured here: MPEG program streams (frames of the audio stream) and WebM written as a
 * stream, without a Duration (the end of its last block).
 */
export const probeAudio = async (path: string, filename: string): Promise<ProbeResult> => {
  const size = (await stat(path)).size
  // A signature reader that trips over damaged bytes has recognised nothing.
  const sniffed = size === 0 ? undefined : await fileTypeFromFile(path, { mpegOffsetTolerance: 10 }).catch(() => undefined)
  const classified = classifyAudio({ filename, size, sniffed: sniffed?.ext })
  if (classified._tag === "Rejected") return reject(classified.kind, classified.message)
  const format = classified.format
  const label = audioFormats[format].label
  let measured: { seconds: number | undefined; problem?: string }
  try {
    measured = await measure(format, path, size)
  } catch (error) {
    return reject("corrupt", `The file '${filename}' is damaged: it could not be read as ${label}.`, String(error))
  }
  if (measured.problem === "no-audio") return reject("unsupported", `The file '${filename}' has no audio track.`)
  if (measured.problem !== undefined) return reject("corrupt", `The file '${filename}' is damaged: ${measured.problem}.`)
  const seconds = measured.seconds
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) {
    return reject("corrupt", `The file '${filename}' is damaged: no audio duration could be read from it as ${label}.`)
  }
  return { _tag: "Measured", format, durationSeconds: seconds, bytes: size }
}
