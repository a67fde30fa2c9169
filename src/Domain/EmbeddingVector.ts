import type { EmbeddingFormat } from "./EmbeddingRequest.ts"
import type { EmbeddingVector, JsonNumbers } from "./EmbeddingResult.ts"

/**
 * The base64 form is the vector's float32 values as little-endian bytes, which is what the
 * OpenAI SDKs decode (`new Float32Array(Buffer.from(s, "base64").buffer)`). Typed arrays use
 * the platform's byte order, so they are viewed directly only on little-endian machines (all
 * common ones) and read through a DataView elsewhere.
 */
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

export const floatsToBase64 = (values: ReadonlyArray<number>): string => {
  if (littleEndian) return Buffer.from(Float32Array.from(values).buffer).toString("base64")
  const view = new DataView(new ArrayBuffer(values.length * 4))
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true)
  return Buffer.from(view.buffer).toString("base64")
}

/**
 * Whether a padded base64 string holds a whole number of float32 values. Only the length is
 * checked (constant time, however large the batch): it catches truncation, not corruption.
 */
export const isFloat32Base64 = (encoded: string): boolean => {
  if (encoded.length % 4 !== 0) return false
  const padding = encoded.endsWith("==") ? 2 : encoded.endsWith("=") ? 1 : 0
  return ((encoded.length / 4) * 3 - padding) % 4 === 0
}

/** The numbers of a base64 vector (see `isFloat32Base64`); a trailing partial float is ignored. */
export const base64ToFloats = (encoded: string): Array<number> => {
  const bytes = Buffer.from(encoded, "base64")
  const count = Math.floor(bytes.byteLength / 4)
  // A view needs 4-byte alignment; Node's buffer pool aligns to 8, but a copy is always safe.
  if (littleEndian && bytes.byteOffset % 4 === 0) return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, count))
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 4)
  const out = new Array<number>(count)
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true)
  return out
}

const isJsonNumbers = (vector: EmbeddingVector): vector is JsonNumbers => typeof vector === "object" && "_tag" in vector

/** The vector as JSON; text kept from the upstream is copied as it is. */
export const vectorJson = (vector: EmbeddingVector): string => (isJsonNumbers(vector) ? vector.json : JSON.stringify(vector))

/** The vector in the client's format; one already in it is returned as it is, not re-encoded. */
export const vectorIn = (vector: EmbeddingVector, format: EmbeddingFormat): EmbeddingVector => {
  if (format === "base64") {
    if (typeof vector === "string") return vector
    return floatsToBase64(isJsonNumbers(vector) ? (JSON.parse(vector.json) as Array<number>) : vector)
  }
  return typeof vector === "string" ? base64ToFloats(vector) : vector
}
