/**
 * Provider secrets must never leave the gateway: not in a client's body, a log line, a span or a
 * usage row. Upstream text (error bodies, stream error events, transport failures) passes through
 * `redactSecrets` where it enters the gateway (`src/Providers/ProviderErrors.ts`), so nothing
 * downstream ever holds the raw text.
 *
 * The configured keys are known to a process-wide registry: every provider adapter registers its
 * own key when it is built (`src/Providers/ProviderHttp.ts`), so Providers never need a service.
 * The registry only grows: a key once configured in this process stays redacted (tests run several
 * gateways in one process, and redacting a stale key costs nothing).
 */

/**
 * Keys shorter than this are not matched literally: a real provider key is far longer, and a short
 * value ("k", "test") would blank out ordinary words. Shaped tokens below are matched regardless.
 */
export const minimumSecretLength = 8

/** What a secret is replaced with. */
export const redactedMarker = "[redacted]"

const registered = new Set<string>()
let literal: RegExp | undefined

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Adds a configured secret (a provider key, an auth header value) to the registry. */
export const registerSecret = (value: string | undefined): void => {
  if (value === undefined) return
  const trimmed = value.trim()
  if (trimmed.length < minimumSecretLength || registered.has(trimmed)) return
  registered.add(trimmed)
  literal = undefined
}

/** Every registered secret (for tests that scan captured output for them). */
export const registeredSecrets = (): ReadonlyArray<string> => [...registered]

/**
 * Token shapes that are secrets whoever configured them: OpenAI and Anthropic keys (`sk-…`,
 * `sk-proj-…`, `sk-ant-…`, including OpenAI's own masked echo `sk-proj-****abcd`), Google API keys
 * (`AIza…`), Groq keys (`gsk_…`), bearer credentials and key-carrying query parameters.
 */
const shapes: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bBearer\s+[A-Za-z0-9._~+/=*-]+/gi, `Bearer ${redactedMarker}`],
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, redactedMarker],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, redactedMarker],
  [/\bgsk_[A-Za-z0-9]{10,}/g, redactedMarker],
  [/([?&](?:key|api_key|apikey|access_token|token)=)[^&\s"'#]+/gi, `$1${redactedMarker}`]
]

const literalPattern = (): RegExp | undefined => {
  if (registered.size === 0) return undefined
  // Longest first, so a key that contains another key is replaced whole.
  literal ??= new RegExp([...registered].sort((a, b) => b.length - a.length).map(escape).join("|"), "g")
  return literal
}

/** `text` with every registered secret and every secret-shaped token replaced by `[redacted]`. */
export const redactSecrets = (text: string): string => {
  let out = text
  const keys = literalPattern()
  if (keys !== undefined) out = out.replace(keys, redactedMarker)
  for (const [pattern, replacement] of shapes) out = out.replace(pattern, replacement)
  return out
}

/** `redactSecrets` for optional text. */
export const redactOptional = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : redactSecrets(text)
