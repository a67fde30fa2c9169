import type { ByteSource } from "./ByteSource.ts"
import { trimEndChars } from "../../Domain/TrimChars.ts"

export interface WebmTimeline {
  /** End of the last audio block in seconds, or undefined when there is no block. */
  readonly seconds: number | undefined
  readonly hasAudio: boolean
  /** A block runs past the end of the file. */
  readonly truncated: boolean
}

// Element ids (with their length marker), Matroska specification.
const ids = {
  segment: 0x18538067,
  cluster: 0x1f43b675,
  blockGroup: 0xa0,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  clusterTimecode: 0xe7,
  simpleBlock: 0xa3,
  block: 0xa1,
  blockDuration: 0x9b,
  trackNumber: 0xd7,
  trackType: 0x83,
  codecId: 0x86
} as const
const masters: ReadonlySet<number> = new Set([ids.segment, ids.cluster, ids.blockGroup, ids.tracks, ids.trackEntry, ids.info])

interface Vint {
  readonly length: number
  readonly value: number
  readonly unknown: boolean
}

/** An EBML variable-length integer; ids keep their length marker, sizes do not. */
const vint = (b: Uint8Array, at: number, keepMarker: boolean): Vint | undefined => {
  const first = b[at]
  if (first === undefined || first === 0) return undefined
  let length = 1
  let mask = 0x80
  while (!(first & mask)) {
    length++
    mask >>= 1
  }
  if (at + length > b.length) return undefined
  let value = keepMarker ? first : first & (mask - 1)
  let unknown = (first & (mask - 1)) === mask - 1
  for (let k = 1; k < length; k++) {
    value = value * 256 + b[at + k]!
    if (b[at + k] !== 0xff) unknown = false
  }
  return { length, value, unknown }
}

const uint = (b: Uint8Array, at: number, size: number): number => {
  let value = 0
  for (let k = 0; k < size; k++) value = value * 256 + b[at + k]!
  return value
}

/** Milliseconds of one Opus packet from its TOC byte (and the frame count byte of code 3). RFC 6716 3.1. */
export const opusPacketMs = (toc: number, countByte: number | undefined): number => {
  const config = toc >> 3
  const frameMs = config < 12 ? [10, 20, 40, 60][config % 4]! : config < 16 ? [10, 20][config % 2]! : [2.5, 5, 10, 20][config % 4]!
  const code = toc & 3
  const frames = code === 0 ? 1 : code === 3 ? (countByte ?? 0) & 0x3f : 2
  return frameMs * frames
}

/**
 * Where the audio of a WebM/Matroska file ends, for files that declare no Duration (a browser's
 * MediaRecorder writes to a stream and never goes back to fill it in): the elements are walked,
 * and the latest block timestamp of the audio track plus that block's own length (from
 * BlockDuration, the Opus packet header, or else the gap before it) is the end.
 * @see https://www.matroska.org/technical/elements.html
 */
export const webmTimeline = async (source: ByteSource): Promise<WebmTimeline> => {
  let scaleNs = 1_000_000
  let cluster = 0
  let audioTrack: number | undefined
  let opus = false
  let entry: { number?: number; type?: number; codec?: string } = {}
  let latest: number | undefined
  let latestMs = 0
  let previous: number | undefined
  let pendingDuration: number | undefined
  let lastWasLatest = false
  let truncated = false
  let p = 0
  while (p < source.size) {
    const head = await source.read(p, 16)
    const id = vint(head, 0, true)
    const size = id === undefined ? undefined : vint(head, id.length, false)
    if (id === undefined || size === undefined) break
    const data = p + id.length + size.length
    if (masters.has(id.value)) {
      if (id.value === ids.trackEntry) entry = {}
      if (id.value === ids.blockGroup) lastWasLatest = false
      p = data
      continue
    }
    if (size.unknown) break
    if (data + size.value > source.size) {
      if (id.value === ids.simpleBlock || id.value === ids.block) truncated = true
      break
    }
    const body = size.value <= 8 ? await source.read(data, size.value) : undefined
    switch (id.value) {
      case ids.timecodeScale:
        scaleNs = uint(body!, 0, size.value)
        break
      case ids.clusterTimecode:
        cluster = uint(body!, 0, size.value)
        break
      case ids.blockDuration:
        // Written before or after the Block of its group.
        if (lastWasLatest) latestMs = (uint(body!, 0, size.value) * scaleNs) / 1e6
        else pendingDuration = uint(body!, 0, size.value)
        break
      case ids.trackNumber:
      case ids.trackType:
        entry[id.value === ids.trackNumber ? "number" : "type"] = uint(body!, 0, size.value)
        if (entry.type === 2 && entry.number !== undefined && audioTrack === undefined) {
          audioTrack = entry.number
          opus = entry.codec === "A_OPUS"
        }
        break
      case ids.codecId: {
        const text = new TextDecoder().decode(await source.read(data, Math.min(size.value, 32)))
        entry.codec = trimEndChars(text, "\0")
        if (entry.number !== undefined && entry.number === audioTrack) opus = entry.codec === "A_OPUS"
        break
      }
      case ids.simpleBlock:
      case ids.block: {
        const block = await source.read(data, 16)
        const track = vint(block, 0, false)
        if (track === undefined) break
        if (audioTrack !== undefined && track.value !== audioTrack) break
        const relative = ((block[track.length]! << 8) | block[track.length + 1]!) << 16 >> 16
        const at = cluster + relative
        const frame = track.length + 3
        const ms = opus && size.value > frame
          ? opusPacketMs(block[frame]!, block[frame + 1])
          : pendingDuration !== undefined
          ? (pendingDuration * scaleNs) / 1e6
          : previous !== undefined
          ? ((at - previous) * scaleNs) / 1e6
          : 0
        lastWasLatest = latest === undefined || at >= latest
        if (lastWasLatest) {
          latest = at
          latestMs = ms
        }
        previous = at
        pendingDuration = undefined
        break
      }
    }
    p = data + size.value
  }
  return {
    seconds: latest === undefined ? undefined : (latest * scaleNs) / 1e9 + latestMs / 1000,
    hasAudio: audioTrack !== undefined,
    truncated
  }
}
