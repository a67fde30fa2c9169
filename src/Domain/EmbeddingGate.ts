import type { EmbeddingRequest } from "./EmbeddingRequest.ts"
import type { ModelConfig } from "./GatewayConfig.ts"
import { GatewayError } from "./GatewayError.ts"

/**
 * Rejects, before any upstream call, what the model cannot do with this request: shortening
 * without nested (Matryoshka) representations, token-id input when none of its providers takes
 * it, a token array longer than its context. Returns the first violation, naming its field.
 * The router applies the same check to fallback models, so a fallback never changes the answer.
 */
export const checkEmbeddingRequest = (
  request: EmbeddingRequest,
  model: ModelConfig,
  routes: { readonly acceptsTokens: boolean }
): GatewayError | undefined => {
  const c = model.capabilities
  const wanted = request.dimensions
  // Asking for the native size shortens nothing, so any model may be asked for it.
  if (wanted !== undefined && wanted !== c.dimensions) {
    if (!c.matryoshka) {
      return GatewayError.invalid(
        `The model '${model.id}' does not support 'dimensions': its embeddings cannot be shortened${c.dimensions === undefined ? "" : ` (they have ${c.dimensions})`}.`,
        "dimensions",
        "unsupported_parameter"
      )
    }
    if (c.dimensions !== undefined && wanted > c.dimensions) {
      return GatewayError.invalid(`'dimensions' is ${wanted}; the model '${model.id}' makes embeddings of at most ${c.dimensions}.`, "dimensions")
    }
  }
  if (request.input._tag === "Tokens") {
    if (!routes.acceptsTokens) {
      return GatewayError.invalid(
        `The model '${model.id}' does not accept token-id arrays as input; send the input as text.`,
        "input",
        "unsupported_input"
      )
    }
    const limit = c.context_length
    if (limit !== undefined) {
      const all = request.input.tokens
      for (const [i, tokens] of all.entries()) {
        if (tokens.length > limit) {
          // A lone token array may have been sent bare (`input: [1, 2]`), where `input[0]` is its first token.
          const param = all.length === 1 ? "input" : `input[${i}]`
          return GatewayError.invalid(`'${param}' has ${tokens.length} tokens; the model '${model.id}' takes at most ${limit}.`, param)
        }
      }
    }
  }
  return undefined
}

/** The `dimensions` to send upstream: only a real shortening (the gate has allowed it). */
export const upstreamDimensions = (request: EmbeddingRequest, model: ModelConfig): number | undefined =>
  request.dimensions === undefined || request.dimensions === model.capabilities.dimensions ? undefined : request.dimensions
