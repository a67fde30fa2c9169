import { createHmac, timingSafeEqual } from "node:crypto"

export interface LinkSigner {
  /** The signature of a link to `name` that works until `expires` (unix seconds). */
  readonly sign: (name: string, expires: number) => string
  /** Whether `signature` is the one `sign` gives, compared in constant time. */
  readonly verify: (name: string, expires: number, signature: string) => boolean
}

/**
 * HMAC-SHA256 over the image's name and the link's expiry, base64url: a link cannot be made for
 * another image or given a later expiry without the key, and the name itself is unguessable.
 */
export const makeLinkSigner = (secret: string | Uint8Array): LinkSigner => {
  const sign = (name: string, expires: number) => createHmac("sha256", secret).update(`${name}\n${expires}`).digest("base64url")
  return {
    sign,
    verify: (name, expires, signature) => {
      const expected = Buffer.from(sign(name, expires))
      const given = Buffer.from(signature)
      return given.length === expected.length && timingSafeEqual(given, expected)
    }
  }
}
