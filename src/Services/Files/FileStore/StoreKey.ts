import * as Effect from "effect/Effect"
import { GatewayError } from "../../../Domain/GatewayError.ts"

/**
 * Keys are opaque to the store but always map onto a relative path under the store root, so
 * they are limited to `/`-separated segments of letters, digits, `.`, `_` and `-`. A segment
 * may not start with a dot: that rules out `.` and `..` and keeps the dot-prefixed names the
 * disk store uses for its temporary files out of the key space.
 */
const segmentPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/
const maxKeyLength = 1024

const problem = (key: string): string | undefined => {
  if (key.length === 0) return "it is empty"
  if (key.length > maxKeyLength) return `it is longer than ${maxKeyLength} characters`
  if (key.startsWith("/")) return "it is an absolute path"
  for (const segment of key.split("/")) {
    if (segment.length === 0) return "it has an empty path segment"
    if (segment === "." || segment === "..") return "it has a relative path segment"
    if (!segmentPattern.test(segment)) {
      return "a path segment must start with a letter, digit, _ or - and contain only letters, digits, ., _ and -"
    }
  }
  return undefined
}

/** The key's path segments, or a 400 saying why the key cannot be stored. */
export const validateKey = (key: string): Effect.Effect<ReadonlyArray<string>, GatewayError> => {
  const reason = problem(key)
  return reason === undefined
    ? Effect.succeed(key.split("/"))
    : Effect.fail(GatewayError.invalid(`Invalid storage key ${JSON.stringify(key.slice(0, 80))}: ${reason}.`, "key"))
}
