/**
 * One vector as the provider sent it: numbers, a base64 string of little-endian float32 bytes
 * (OpenAI's `encoding_format: "base64"`), or the JSON text of its numbers. Kept as sent so that a
 * vector already in the format the client asked for is passed on untouched.
 */
export type EmbeddingVector = ReadonlyArray<number> | string | JsonNumbers

/**
 * A vector of numbers as the JSON array text its upstream wrote, checked to hold numbers only:
 * passed on without being parsed or formatted (1,536 numbers cost 40-60 us each way).
 */
export interface JsonNumbers {
  readonly _tag: "JsonNumbers"
  readonly json: string
}

/** A provider's answer: one vector per input, in input order. */
export interface EmbeddingResult {
  readonly vectors: ReadonlyArray<EmbeddingVector>
  readonly promptTokens: number
}
