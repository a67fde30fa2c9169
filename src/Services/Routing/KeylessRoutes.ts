import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, ServiceUnavailable } from "../../Domain/GatewayError.ts"
import { keyHint } from "../Config/ProviderKeys.ts"

/**
 * Leaves out the deployments of providers that have no key, so a request never goes upstream
 * without one. When nothing is left the request fails with a 503 that names each provider and
 * the variable to set; nothing was called, so nothing is charged.
 */
export const keylessRoutes = (keyless: ReadonlySet<string>, variables: Readonly<Record<string, string>>) =>
(models: ReadonlyArray<ModelConfig>): ReadonlyArray<ModelConfig> | GatewayError => {
  if (keyless.size === 0) return models
  const usable: Array<ModelConfig> = []
  for (const model of models) {
    if (!model.deployments.some((d) => keyless.has(d.provider))) {
      usable.push(model)
      continue
    }
    const deployments = model.deployments.filter((d) => !keyless.has(d.provider))
    if (deployments.length > 0) usable.push({ ...model, deployments })
  }
  if (usable.length > 0 || models.length === 0) return usable
  const missing = [...new Set(models.flatMap((m) => m.deployments.map((d) => d.provider)))].filter((p) => keyless.has(p))
  const hints = missing.map((p) => `provider '${p}' has no API key (${keyHint(p, variables)})`).join("; ")
  return new GatewayError({
    reason: new ServiceUnavailable({
      message: `The model '${models[0]!.id}' cannot be served: ${hints}, then restart the gateway.`,
      // Retrying does not help until the key is set; a minute keeps clients from hammering.
      retryAfterMs: 60_000,
      code: "provider_not_configured"
    })
  })
}
