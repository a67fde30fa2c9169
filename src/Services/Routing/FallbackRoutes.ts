import type { Deployment, ModelConfig } from "../../Domain/GatewayConfig.ts"

/**
 * The models a request of one kind may be routed to, in order: its own, then each fallback of
 * the same kind that `accepts` the request (the same gate as the requested model, so a fallback
 * never serves what the client did not ask for). Each model keeps only the deployments `usable`
 * says an adapter can serve; a model left with none is skipped. The image, speech and
 * embeddings routes are this with their own gate and adapter test.
 */
export const fallbackRoutes = (
  model: ModelConfig,
  kind: ModelConfig["kind"],
  find: (id: string) => ModelConfig | undefined,
  usable: (deployment: Deployment) => boolean,
  accepts: (fallback: ModelConfig) => boolean
): ReadonlyArray<ModelConfig> => {
  const served = (m: ModelConfig): ModelConfig | undefined => {
    const deployments = m.deployments.filter(usable)
    if (deployments.length === 0) return undefined
    return deployments.length === m.deployments.length ? m : { ...m, deployments }
  }
  const routes: Array<ModelConfig> = []
  const own = served(model)
  if (own !== undefined) routes.push(own)
  for (const id of model.fallbacks) {
    const fallback = find(id)
    if (fallback === undefined || fallback.kind !== kind || !accepts(fallback)) continue
    const routed = served(fallback)
    if (routed !== undefined) routes.push(routed)
  }
  return routes
}
