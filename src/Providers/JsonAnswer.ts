import * as Effect from "effect/Effect"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { badResponse } from "./ProviderErrors.ts"
import type { UpstreamResponse } from "./ProviderHttp.ts"

type Answer = UpstreamResponse & { readonly text: string }

/** `JSON.parse`, or undefined for text that is not JSON (JSON itself has no undefined). */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * The parsed body of a provider's JSON answer. A non-2xx status becomes the provider's own
 * error (its codec reads the error body); an unreadable body (`parse` gives undefined) a bad
 * response. `parse` defaults to `JSON.parse`.
 */
export const jsonAnswer = <A = unknown>(
  provider: string,
  response: Answer,
  providerError: (provider: string, response: UpstreamResponse, text: string) => GatewayError,
  parse: (text: string) => A | undefined = parseJson as (text: string) => A | undefined
): Effect.Effect<A, GatewayError> => {
  if (response.status < 200 || response.status >= 300) return Effect.fail(providerError(provider, response, response.text))
  const parsed = parse(response.text)
  return parsed === undefined ? Effect.fail(badResponse(provider, "the body was not valid JSON")) : Effect.succeed(parsed)
}
