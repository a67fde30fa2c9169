import { checkEmbeddingRequest } from "../../Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { fallbackRoutes } from "./FallbackRoutes.ts"
import type { EmbeddingProvider } from "../../Providers/EmbeddingProvider.ts"

type ProviderLookup = (providerId: string) => EmbeddingProvider | undefined

/** Whether some deployment of the model can be sent token-id input. */
export const acceptsTokens = (model: ModelConfig, provider: ProviderLookup): boolean =>
  model.deployments.some((d) => provider(d.provider)?.acceptsTokens === true)

/**
 * The models an embeddings request may be routed to, in order: its own, then each fallback
 * that passes the same gate as the requested model (so a fallback never serves what the model
 * itself would have refused). Each keeps only the deployments whose provider has an
 * embeddings adapter able to take the input; a model left with none is skipped.
 */
export const embeddingRoutes = (
  model: ModelConfig,
  request: EmbeddingRequest,
  find: (id: string) => ModelConfig | undefined,
  provider: ProviderLookup
): ReadonlyArray<ModelConfig> => {
  const tokens = request.input._tag === "Tokens"
  return fallbackRoutes(
    model,
    "embedding",
    find,
    (d) => {
      const adapter = provider(d.provider)
      return adapter !== undefined && (!tokens || adapter.acceptsTokens)
    },
    (m) => checkEmbeddingRequest(request, m, { acceptsTokens: acceptsTokens(m, provider) }) === undefined
  )
}
