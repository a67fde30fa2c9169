import { checkEmbeddingRequest } from "../../Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
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
  const usable = (m: ModelConfig): ModelConfig | undefined => {
    const deployments = m.deployments.filter((d) => {
      const adapter = provider(d.provider)
      return adapter !== undefined && (!tokens || adapter.acceptsTokens)
    })
    if (deployments.length === 0) return undefined
    return deployments.length === m.deployments.length ? m : { ...m, deployments }
  }
  const routes: Array<ModelConfig> = []
  const own = usable(model)
  if (own !== undefined) routes.push(own)
  for (const id of model.fallbacks) {
    const fallback = find(id)
    if (fallback === undefined || fallback.kind !== "embedding") continue
    if (checkEmbeddingRequest(request, fallback, { acceptsTokens: acceptsTokens(fallback, provider) }) !== undefined) continue
    const routed = usable(fallback)
    if (routed !== undefined) routes.push(routed)
  }
  return routes
}
