import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type ApiScope, allScopes } from "../Domain/ApiKey.ts"

/** A command line that names impossible or malformed options; printed as one line, exit code 2. */
export class CliUsageError extends Data.TaggedError("CliUsageError")<{ readonly message: string }> {}

const usage = (message: string) => Effect.fail(new CliUsageError({ message }))

/** `chat,models` -> scopes; every name must be a known scope. */
export const parseScopes = (raw: string): Effect.Effect<ReadonlyArray<ApiScope>, CliUsageError> => {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  if (names.length === 0) return usage(`--scopes needs at least one scope (known: ${allScopes.join(", ")})`)
  const unknown = names.filter((n) => !(allScopes as ReadonlyArray<string>).includes(n))
  if (unknown.length > 0) {
    return usage(`--scopes: unknown scope ${unknown.map((u) => `'${u}'`).join(", ")} (known: ${allScopes.join(", ")})`)
  }
  return Effect.succeed([...new Set(names)] as ReadonlyArray<ApiScope>)
}

const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }

/** `90s`, `15m`, `12h`, `30d`, `2w` -> seconds. */
export const parseDuration = (flag: string, raw: string): Effect.Effect<number, CliUsageError> => {
  const match = /^(\d+)\s*([smhdw])$/.exec(raw.trim())
  const seconds = match === null ? 0 : Number(match[1]) * unitSeconds[match[2]!]!
  return seconds > 0 ? Effect.succeed(seconds) : usage(`${flag}: expected a duration such as 12h, 30d or 2w, got '${raw}'`)
}

/** Unix seconds, or an ISO 8601 date/time (`2026-11-01`, `2026-11-01T12:00:00Z`). */
export const parseTime = (flag: string, raw: string): Effect.Effect<number, CliUsageError> => {
  const text = raw.trim()
  if (/^\d+$/.test(text)) return Effect.succeed(Number(text))
  const millis = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN
  return Number.isFinite(millis)
    ? Effect.succeed(Math.floor(millis / 1000))
    : usage(`${flag}: expected unix seconds or an ISO 8601 date, got '${raw}'`)
}

export const nonEmpty = (flag: string, raw: string): Effect.Effect<string, CliUsageError> =>
  raw.trim() === "" ? usage(`${flag} must not be empty`) : Effect.succeed(raw.trim())
