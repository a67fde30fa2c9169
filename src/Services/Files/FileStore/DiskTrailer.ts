import type { FileHandle } from "node:fs/promises"
import * as Schema from "effect/Schema"

/**
 * A stored file is the raw content followed by a trailer: metadata JSON, its length as a
 * big-endian uint32, then the magic `GWF1`. Keeping content and metadata in one file lets a
 * single rename publish both atomically, and putting the metadata last means it can be written
 * once the size and hash are known while the file still starts with the original bytes.
 */
const magic = Buffer.from("GWF1", "latin1")
const fixedBytes = 8
const maxJsonBytes = 64 * 1024

const TrailerJson = Schema.fromJsonString(
  Schema.Struct({
    contentType: Schema.String,
    bytes: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
    sha256: Schema.String
  })
)
const decodeTrailerJson = Schema.decodeUnknownSync(TrailerJson)

export interface Trailer {
  readonly contentType: string
  readonly bytes: number
  readonly sha256: string
}

export const encodeTrailer = (trailer: Trailer): Buffer => {
  const json = Buffer.from(JSON.stringify(trailer), "utf8")
  const fixed = Buffer.alloc(fixedBytes)
  fixed.writeUInt32BE(json.byteLength, 0)
  magic.copy(fixed, 4)
  return Buffer.concat([json, fixed])
}

/** Reads the trailer of an open stored file of `size` bytes; throws when the file is not one. */
export const readTrailer = async (handle: FileHandle, size: number, path: string): Promise<Trailer> => {
  const corrupt = (why: string) => new Error(`${path} is not a stored file (${why})`)
  if (size < fixedBytes) throw corrupt("too short")
  const fixed = await readExactly(handle, fixedBytes, size - fixedBytes)
  if (!fixed.subarray(4).equals(magic)) throw corrupt("no trailer")
  const jsonBytes = fixed.readUInt32BE(0)
  if (jsonBytes > maxJsonBytes || jsonBytes > size - fixedBytes) throw corrupt("bad trailer length")
  const json = await readExactly(handle, jsonBytes, size - fixedBytes - jsonBytes)
  const trailer = decodeTrailerJson(json.toString("utf8"))
  if (trailer.bytes !== size - fixedBytes - jsonBytes) throw corrupt("size does not match its trailer")
  return trailer
}

const readExactly = async (handle: FileHandle, length: number, position: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) throw new Error("unexpected end of file")
    filled += bytesRead
  }
  return buffer
}
