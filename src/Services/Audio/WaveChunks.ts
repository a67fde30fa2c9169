import type { ByteSource } from "./ByteSource.ts"

/**
 * Whether a RIFF/WAVE file holds all the sample data its `data` chunk declares. A header-only
 * reader believes the declared size, so a cut-off file would be measured (and billed) at its
 * declared length; here the chunks are walked and the declared size checked against the file.
 * A size of 0 or 0xFFFFFFFF (written by streaming encoders that could not go back) means "to
 * the end of the file" and is accepted.
 * @see http://www-mmsp.ece.mcgill.ca/Documents/AudioFormats/WAVE/WAVE.html
 */
export const waveDataMissing = async (source: ByteSource): Promise<number> => {
  let p = 12
  while (p + 8 <= source.size) {
    const head = await source.read(p, 8)
    const id = String.fromCharCode(head[0]!, head[1]!, head[2]!, head[3]!)
    const size = (head[4]! | (head[5]! << 8) | (head[6]! << 16) | (head[7]! << 24)) >>> 0
    if (id === "data") {
      if (size === 0 || size === 0xffffffff) return 0
      return Math.max(0, p + 8 + size - source.size)
    }
    p += 8 + size + (size & 1)
  }
  return 0
}
