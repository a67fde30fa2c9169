import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { checkImageAsk } from "../../Domain/ImageGate.ts"
import type { ImageAsk } from "../../Domain/ImageRequest.ts"
import type { ImageProvider } from "../../Providers/ImageProvider.ts"

type ProviderLookup = (providerId: string) => ImageProvider | undefined

/**
 * The models an image request may be routed to, in order: its own, then each image fallback
 * whose catalogue entry accepts every option the request set (the same gate as the requested
 * model), so a fallback never makes something the client did not ask for. Each keeps only the
 * deployments whose provider has an image adapter; a model left with none is skipped.
 */
export const imageRoutes = (
  model: ModelConfig,
  ask: ImageAsk,
  find: (id: string) => ModelConfig | undefined,
  provider: ProviderLookup
): ReadonlyArray<ModelConfig> => {
  const usable = (m: ModelConfig): ModelConfig | undefined => {
    const deployments = m.deployments.filter((d) => provider(d.provider) !== undefined)
    if (deployments.length === 0) return undefined
    return deployments.length === m.deployments.length ? m : { ...m, deployments }
  }
  const routes: Array<ModelConfig> = []
  const own = usable(model)
  if (own !== undefined) routes.push(own)
  for (const id of model.fallbacks) {
    const fallback = find(id)
    if (fallback === undefined || fallback.kind !== "image" || checkImageAsk(ask, fallback) !== undefined) continue
    const routed = usable(fallback)
    if (routed !== undefined) routes.push(routed)
  }
  return routes
}
