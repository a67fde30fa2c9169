/**
 * One vector as the provider sent it: numbers, or a base64 string of little-endian float32
 * bytes (OpenAI's `encoding_format: "base64"`). Kept as sent so that a vector already in the
 * format the client asked for is passed on untouched.
 */
export type EmbeddingVector = ReadonlyArray<number> | string

/** A provider's answer: one vector per input, in input order. */
export interface EmbeddingResult {
  readonly vectors: ReadonlyArray<EmbeddingVector>
  readonly promptTokens: number
}
