import { randomBytes, randomFillSync } from "node:crypto"

/**
 * Public identifiers are a type prefix plus URL-safe randomness, so an id says what it names
 * and cannot be guessed or enumerated.
 */
const pool = Buffer.allocUnsafe(4096)
let poolOffset = pool.length

// Ids are made on every request: one call to the CSPRNG per 4 KiB instead of one per id.
const randomToken = (bytes: number): string => {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const token = pool.toString("base64url", poolOffset, poolOffset + bytes)
  poolOffset += bytes
  return token
}

/** Chat completions and other generated responses: the spec's fixed `svc_` prefix. */
export const responseId = (): string => `svc_${randomToken(18)}`
/** A Messages API response (`msg_` like Anthropic's own, so clients that check the prefix accept it). */
export const messageId = (): string => `msg_${randomToken(18)}`
export const requestId = (): string => `req_${randomToken(12)}`
export const projectId = (): string => `proj_${randomToken(12)}`
export const userId = (): string => `user_${randomToken(12)}`
export const apiKeyId = (): string => `key_${randomToken(12)}`
export const fileId = (): string => `file-${randomToken(18)}`
export const toolCallId = (): string => `call_${randomToken(12)}`
/** A generated image served by link: 144 random bits, so the link cannot be guessed. */
export const imageId = (): string => `img_${randomToken(18)}`

/** An API key secret: `sk-` and 256 bits of randomness. Shown once, stored only as a hash. */
export const apiKeySecret = (): string => `sk-${randomBytes(32).toString("base64url")}`
