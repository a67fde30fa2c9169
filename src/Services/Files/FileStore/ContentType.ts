import * as Effect from "effect/Effect"
import { GatewayError } from "../../../Domain/GatewayError.ts"

/**
 * The content type is stored next to the bytes and sent back as a header (and, on S3, sent as
 * one), so it must be a short printable-ASCII string; anything else would fail deep inside the
 * storage client as a 500.
 */
const pattern = /^[\x20-\x7e]{1,255}$/

export const validateContentType = (contentType: string): Effect.Effect<void, GatewayError> =>
  pattern.test(contentType)
    ? Effect.void
    : Effect.fail(
        GatewayError.invalid("The file's content type must be 1 to 255 printable ASCII characters.", "file")
      )
