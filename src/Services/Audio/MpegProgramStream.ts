import type { ByteSource } from "./ByteSource.ts"
import { MpegFrameWalker } from "./MpegAudioFrames.ts"

export interface ProgramStreamAudio {
  /** Seconds of the first MPEG audio stream, from its frames (the decoded length). */
  readonly seconds: number
  readonly hasAudio: boolean
  /** A packet runs past the end of the file. */
  readonly truncated: boolean
}

/** The PES payload of an MPEG-1 or MPEG-2 packet header starting at `p` (after the 6-byte start). */
const payloadOffset = (b: Uint8Array, p: number): number => {
  if ((b[p]! & 0xc0) === 0x80) return p + 3 + b[p + 2]! // MPEG-2: flags, header_data_length
  let q = p
  while (b[q] === 0xff && q < p + 16) q++ // MPEG-1 stuffing
  if ((b[q]! & 0xc0) === 0x40) q += 2 // STD buffer
  if ((b[q]! & 0xf0) === 0x20) return q + 5 // PTS
  if ((b[q]! & 0xf0) === 0x30) return q + 10 // PTS and DTS
  return q + 1 // 0x0F: neither
}

/**
 * The audio length of an MPEG program stream (`.mpeg`/`.mpg`, MPEG-1 or MPEG-2 systems):
 * the packs are walked, the payloads of the first MPEG audio stream (ids 0xC0-0xDF) are handed
 * to the frame walker, and its frames give the length. Timestamps are not used: the last
 * packet's timestamp says nothing about how many frames follow it in that packet.
 * @see ISO/IEC 11172-1 and ISO/IEC 13818-1 2.5 (program stream)
 */
export const programStreamAudio = async (source: ByteSource): Promise<ProgramStreamAudio> => {
  const walker = new MpegFrameWalker()
  let audioId: number | undefined
  let truncated = false
  let p = 0
  while (p + 6 <= source.size) {
    const head = await source.read(p, 32)
    if (head[0] !== 0 || head[1] !== 0 || head[2] !== 1) {
      p++ // lost sync: look for the next start code
      continue
    }
    const id = head[3]!
    if (id === 0xb9) break // program end
    if (id === 0xba) {
      p += (head[4]! & 0xc0) === 0x40 ? 14 + (head[13]! & 7) : 12
      continue
    }
    if (id < 0xbb) {
      p += 4
      continue
    }
    const length = (head[4]! << 8) | head[5]!
    const end = p + 6 + length
    if (end > source.size) truncated = true
    if (id >= 0xc0 && id <= 0xdf && (audioId === undefined || audioId === id)) {
      audioId = id
      const start = payloadOffset(head, 6)
      if (start < 32 && p + start < end) walker.feed(await source.read(p + start, end - p - start))
    }
    p = end
  }
  return { seconds: walker.seconds, hasAudio: audioId !== undefined && walker.frames > 0, truncated: truncated || walker.missing > 0 }
}
