/**
 * Text files are read as they are. The encoding comes from a byte-order mark (UTF-8,
 * UTF-16 LE or BE); without one the bytes must be UTF-8, or else they are taken as
 * Windows-1252, the usual encoding of older Western text files. UTF-16 without a BOM is not
 * recognised: it looks like binary data (every other byte is zero).
 */

/** Share of C0 control characters (other than tab, newlines, form feed, escape) a text may hold. */
const maxControlShare = 0.02

const hasBom = (bytes: Uint8Array, ...bom: ReadonlyArray<number>) => bom.every((b, i) => bytes[i] === b)

const controlShare = (text: string): number => {
  if (text.length === 0) return 0
  let controls = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) return 1
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x1b) controls++
  }
  return controls / text.length
}

const tryDecode = (encoding: string, bytes: Uint8Array, fatal: boolean): string | undefined => {
  try {
    return new TextDecoder(encoding, { fatal, ignoreBOM: false }).decode(bytes)
  } catch {
    return undefined
  }
}

/** The text in `bytes`, or undefined when they are not text (binary data). */
export const decodeText = (bytes: Uint8Array): string | undefined => {
  const decoded = hasBom(bytes, 0xef, 0xbb, 0xbf)
    ? tryDecode("utf-8", bytes, false)
    : hasBom(bytes, 0xff, 0xfe)
      ? tryDecode("utf-16le", bytes, false)
      : hasBom(bytes, 0xfe, 0xff)
        ? tryDecode("utf-16be", bytes, false)
        : bytes.includes(0)
          ? undefined
          : (tryDecode("utf-8", bytes, true) ?? tryDecode("windows-1252", bytes, false))
  if (decoded === undefined || controlShare(decoded) > maxControlShare) return undefined
  return decoded
}
