/**
 * MPEG-1/2/2.5 audio frame headers (Layers I, II, III), enough to walk a stream frame by frame:
 * how long each frame is and how many samples it holds. Used to count the decoded length of
 * a program stream's audio and to catch an MP3 whose last frame was cut off.
 * @see ISO/IEC 11172-3 2.4.2.3 and ISO/IEC 13818-3 (the lower sampling frequencies)
 */
export interface FrameHeader {
  readonly bytes: number
  readonly samples: number
  readonly sampleRate: number
}

const bitrates: Readonly<Record<string, ReadonlyArray<number>>> = {
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
}
const sampleRates: Readonly<Record<number, ReadonlyArray<number>>> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000] // MPEG-2.5
}

/** The frame whose header starts at `at`, or undefined for anything that is not a usable header. */
export const frameHeaderAt = (b: Uint8Array, at: number): FrameHeader | undefined => {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined
  const version = (b[at + 1]! >> 3) & 3
  const layer = 4 - ((b[at + 1]! >> 1) & 3)
  const bitrateIndex = b[at + 2]! >> 4
  const rateIndex = (b[at + 2]! >> 2) & 3
  const padding = (b[at + 2]! >> 1) & 1
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined
  const kbps = bitrates[`${version === 3 ? 1 : 2}-${layer}`]![bitrateIndex]!
  const sampleRate = sampleRates[version]![rateIndex]!
  const bitrate = kbps * 1000
  if (layer === 1) return { bytes: (Math.floor((12 * bitrate) / sampleRate) + padding) * 4, samples: 384, sampleRate }
  const lsf = version !== 3 && layer === 3
  return { bytes: Math.floor(((lsf ? 72 : 144) * bitrate) / sampleRate) + padding, samples: layer === 3 && lsf ? 576 : 1152, sampleRate }
}

/**
 * Counts frames of a stream fed in pieces of any size. Until it is in sync it looks for a header
 * followed by another; once in sync, a place where the next header should be and is not ends
 * the walk (trailing tags, padding or damage).
 */
export class MpegFrameWalker {
  frames = 0
  seconds = 0
  sampleRate = 0
  /** Bytes of the last frame that never came: the stream was cut off inside it. */
  missing = 0
  /** In sync, then lost it before the end. */
  stopped = false
  private synced = false
  private skip = 0
  private pending = new Uint8Array(0)

  feed(chunk: Uint8Array): void {
    if (this.stopped) return
    let bytes = chunk
    if (this.pending.length > 0) {
      const joined = new Uint8Array(this.pending.length + chunk.length)
      joined.set(this.pending)
      joined.set(chunk, this.pending.length)
      bytes = joined
      this.pending = new Uint8Array(0)
    }
    let at = 0
    while (at < bytes.length) {
      if (this.skip > 0) {
        const step = Math.min(this.skip, bytes.length - at)
        this.skip -= step
        at += step
        continue
      }
      if (!this.synced) {
        // A header is trusted when the frame after it starts with one too (or the data ends there).
        const header = frameHeaderAt(bytes, at)
        if (header === undefined) {
          if (bytes.length - at < 4) break
          at++
          continue
        }
        if (at + header.bytes + 4 > bytes.length) break
        if (frameHeaderAt(bytes, at + header.bytes) === undefined) {
          at++
          continue
        }
        this.synced = true
      }
      if (bytes.length - at < 4) break
      const header = frameHeaderAt(bytes, at)
      if (header === undefined) {
        this.stopped = true
        this.missing = 0
        return
      }
      this.frames++
      this.seconds += header.samples / header.sampleRate
      this.sampleRate = header.sampleRate
      this.skip = header.bytes
    }
    // Unsynced, keep enough to find a header and its successor across the next piece.
    const keep = this.synced ? bytes.length - at : Math.min(bytes.length - at, 8192)
    this.pending = keep > 0 ? bytes.slice(bytes.length - keep) : new Uint8Array(0)
    this.missing = this.skip
  }
}
