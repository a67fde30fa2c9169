import { createHash } from "node:crypto"

/** Counts and hashes the bytes of an upload on their way to storage and enforces its cap. */
export interface ByteMeter {
  /** False when this chunk would take the object past `maxBytes`; the chunk is then not counted. */
  readonly add: (chunk: Uint8Array) => boolean
  /** Call once, after the last chunk. */
  readonly result: () => { readonly bytes: number; readonly sha256: string }
}

export const makeByteMeter = (maxBytes: number): ByteMeter => {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`)
  }
  const hash = createHash("sha256")
  let bytes = 0
  return {
    add: (chunk) => {
      if (bytes + chunk.byteLength > maxBytes) return false
      bytes += chunk.byteLength
      hash.update(chunk)
      return true
    },
    result: () => ({ bytes, sha256: hash.digest("hex") })
  }
}
