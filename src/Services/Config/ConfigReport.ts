import type { GatewayConfig, ModelConfig } from "../../Domain/GatewayConfig.ts"
import { keyHint, lacksKey } from "./ProviderKeys.ts"

/** What `admin check` found in a configuration that loaded: problems, and what would be served. */
export interface ConfigReport {
  readonly warnings: ReadonlyArray<string>
  readonly providers: ReadonlyArray<{ readonly id: string; readonly kind: string; readonly baseUrl: string; readonly key: string }>
  readonly models: ReadonlyArray<{ readonly id: string; readonly kind: string; readonly routes: string; readonly priced: boolean }>
}

const priced = (model: ModelConfig): boolean => Object.values(model.pricing).some((price) => price !== undefined)

/** `capabilities` as written in the file (before defaults), by model index. */
const statedCapabilities = (raw: unknown, index: number): boolean => {
  const models = raw !== null && typeof raw === "object" ? (raw as { readonly models?: unknown }).models : undefined
  const model = Array.isArray(models) ? (models as ReadonlyArray<unknown>)[index] : undefined
  return model !== null && typeof model === "object" && "capabilities" in model
}

/**
 * Warnings are what loads but will not work as a user expects: a provider without a key (its
 * models answer 503), a model without prices (its usage costs 0), a chat model that states no
 * capabilities (tools, images, structured output are refused with a 400).
 */
export const configReport = (
  config: GatewayConfig,
  raw: unknown,
  variables: Readonly<Record<string, string>>
): ConfigReport => {
  const warnings: Array<string> = []
  const providers = config.providers.map((provider, i) => {
    const missing = lacksKey(provider)
    if (missing) warnings.push(`providers[${i}] '${provider.id}' has no API key: its models answer 503 (${keyHint(provider.id, variables, i)})`)
    const key = provider.api_key === undefined ? "none configured" : missing ? `missing (${variables[provider.id] ?? "api_key is empty"})` : "set"
    return { id: provider.id, kind: provider.kind, baseUrl: provider.kind === "mock" ? "(in-process)" : provider.base_url, key }
  })
  const models = config.models.map((model, i) => {
    if (!priced(model)) warnings.push(`models[${i}] '${model.id}' has no pricing: its usage is recorded at cost 0`)
    if (model.kind === "chat" && !statedCapabilities(raw, i)) {
      warnings.push(`models[${i}] '${model.id}' states no capabilities: tools, image, file input and structured output are refused (400) until stated under capabilities`)
    }
    const deployments = model.deployments.map((d) => `${d.provider}/${d.model}${d.weight === 1 ? "" : ` (weight ${d.weight})`}`).join(", ")
    const fallbacks = model.fallbacks.length === 0 ? "" : `; falls back to ${model.fallbacks.join(", ")}`
    return { id: model.id, kind: model.kind, routes: `${deployments}${fallbacks}`, priced: priced(model) }
  })
  return { warnings, providers, models }
}
