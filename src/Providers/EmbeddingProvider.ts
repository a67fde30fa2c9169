import type * as Effect from "effect/Effect"
import type { EmbeddingRequest } from "../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult } from "../Domain/EmbeddingResult.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { ChatTarget } from "./ChatProvider.ts"

/** Which upstream model serves the call, and what the catalogue says about it. */
export type EmbeddingTarget = ChatTarget

/**
 * The port every embeddings provider implements. Requests arrive validated and checked
 * against the model (dimensions, token input); adapters translate, call, and translate back,
 * returning one vector per input in input order, in whichever format the upstream used.
 */
export interface EmbeddingProvider {
  readonly id: string
  /** Whether token-id arrays can be sent; the router only routes token input to providers that can. */
  readonly acceptsTokens: boolean
  readonly embed: (request: EmbeddingRequest, target: EmbeddingTarget) => Effect.Effect<EmbeddingResult, GatewayError>
}
