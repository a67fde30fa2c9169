import { crc32 } from "node:zlib"

/** One part of an archive as written: its bytes as stored (method 0) or raw-deflated (method 8). */
export interface WrittenEntry {
  readonly name: string
  readonly method: 0 | 8
  /** The bytes in the archive: the content itself for method 0, a raw deflate stream for 8. */
  readonly data: Uint8Array
  /** CRC-32 and length of the content once inflated. */
  readonly crc: number
  readonly size: number
}

/** A part kept as it is (no compression): what the guarded reader hands to parsers. */
export const storedEntry = (name: string, content: Uint8Array): WrittenEntry => ({
  name,
  method: 0,
  data: content,
  crc: crc32(content),
  size: content.length
})

/**
 * A ZIP archive (PKWARE APPNOTE 4.3: local headers, central directory, end record; no ZIP64).
 * The extractor writes every part stored, so a parser reading the result inflates nothing
 * itself: what it can read is exactly what the guarded reader already measured.
 */
export const writeZip = (entries: ReadonlyArray<WrittenEntry>): Uint8Array => {
  const names = entries.map((entry) => Buffer.from(entry.name, "utf8"))
  const localSize = entries.reduce((sum, entry, i) => sum + 30 + names[i]!.length + entry.data.length, 0)
  const centralSize = names.reduce((sum, name) => sum + 46 + name.length, 0)
  const out = Buffer.alloc(localSize + centralSize + 22)
  const offsets: Array<number> = []
  let at = 0
  entries.forEach((entry, i) => {
    const name = names[i]!
    offsets.push(at)
    out.writeUInt32LE(0x04034b50, at)
    out.writeUInt16LE(20, at + 4)
    out.writeUInt16LE(0x0800, at + 6) // UTF-8 names
    out.writeUInt16LE(entry.method, at + 8)
    out.writeUInt32LE(entry.crc >>> 0, at + 14)
    out.writeUInt32LE(entry.data.length, at + 18)
    out.writeUInt32LE(entry.size, at + 22)
    out.writeUInt16LE(name.length, at + 26)
    name.copy(out, at + 30)
    out.set(entry.data, at + 30 + name.length)
    at += 30 + name.length + entry.data.length
  })
  const centralStart = at
  entries.forEach((entry, i) => {
    const name = names[i]!
    out.writeUInt32LE(0x02014b50, at)
    out.writeUInt16LE(20, at + 4)
    out.writeUInt16LE(20, at + 6)
    out.writeUInt16LE(0x0800, at + 8)
    out.writeUInt16LE(entry.method, at + 10)
    out.writeUInt32LE(entry.crc >>> 0, at + 16)
    out.writeUInt32LE(entry.data.length, at + 20)
    out.writeUInt32LE(entry.size, at + 24)
    out.writeUInt16LE(name.length, at + 28)
    out.writeUInt32LE(offsets[i]!, at + 42)
    name.copy(out, at + 46)
    at += 46 + name.length
  })
  out.writeUInt32LE(0x06054b50, at)
  out.writeUInt16LE(entries.length, at + 8)
  out.writeUInt16LE(entries.length, at + 10)
  out.writeUInt32LE(at - centralStart, at + 12)
  out.writeUInt32LE(centralStart, at + 16)
  return new Uint8Array(out.buffer, out.byteOffset, out.length)
}
