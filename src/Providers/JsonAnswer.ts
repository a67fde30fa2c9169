import * as Effect from "effect/Effect"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { badResponse } from "./ProviderErrors.ts"
import type { UpstreamResponse } from "./ProviderHttp.ts"

type Answer = UpstreamResponse & { readonly text: string }

/**
 * The parsed body of a provider's JSON answer. A non-2xx status becomes the provider's own
 * error (its codec reads the error body); an unreadable body a bad response.
 */
export const jsonAnswer = (
  provider: string,
  response: Answer,
  providerError: (provider: string, response: UpstreamResponse, text: string) => GatewayError
): Effect.Effect<unknown, GatewayError> => {
  if (response.status < 200 || response.status >= 300) return Effect.fail(providerError(provider, response, response.text))
  try {
    return Effect.succeed(JSON.parse(response.text) as unknown)
  } catch {
    return Effect.fail(badResponse(provider, "the body was not valid JSON"))
  }
}
