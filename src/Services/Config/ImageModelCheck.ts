import type { GatewayConfig, ModelConfig, ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { imageOptionsOf, inferImageFamily } from "../../Domain/ImageModel.ts"
import type { ImageFamily } from "../../Domain/ImageSettings.ts"
import { familyImageDefaults, imageOptionsProblem } from "../../Providers/ImageFamilies.ts"
import { profileFor, profiles } from "../../Providers/OpenAiCompatible/Profiles.ts"

const speaks = (family: ImageFamily, provider: ProviderConfig): boolean =>
  family === "gemini" || family === "imagen" ? provider.kind === "gemini" : provider.kind === "openai" || provider.kind === "openai-compatible"

/**
 * Start-up checks of one image model (models[i]): every deployment is on a provider with an image
 * API that speaks the model's family, and every value its `image` block declares is one the
 * family (and each provider's profile) can send upstream. Rule 1 of spec 4.5 (qualities or
 * resolutions, never both) is checked with the other model rules in the loader.
 */
export const imageModelProblem = (
  model: ModelConfig,
  i: number,
  providers: ReadonlyMap<string, ProviderConfig>
): { readonly path: string; readonly problem: string } | undefined => {
  if (model.kind !== "image") return undefined
  const options = imageOptionsOf(model)
  const first = providers.get(model.deployments[0]!.provider)!
  const family = options.family ?? inferImageFamily(first.kind, model.deployments[0]!.model)
  for (const [j, deployment] of model.deployments.entries()) {
    const provider = providers.get(deployment.provider)!
    const path = `models[${i}].deployments[${j}].provider`
    if (provider.kind === "anthropic") return { path, problem: `provider "${provider.id}" is of kind anthropic, which has no image API` }
    if (family === undefined || !speaks(family, provider)) {
      return { path, problem: `provider "${provider.id}" (${provider.kind}) does not serve the ${family ?? "unknown"} image family` }
    }
    const profile = provider.kind === "openai" ? profiles["openai"]!.image : profileFor(provider.profile).image
    const problem = imageOptionsProblem(options, family, profile)
    if (problem !== undefined) return { path: `models[${i}].${problem.path}`, problem: problem.problem }
  }
  return undefined
}

/** The keys each model entry's `image` block declares in the file (before defaults), by model index. */
export const declaredImageKeys = (raw: unknown): ReadonlyArray<ReadonlySet<string>> => {
  const models = typeof raw === "object" && raw !== null && "models" in raw ? (raw as { models: unknown }).models : undefined
  if (!Array.isArray(models)) return []
  return models.map((model: unknown) => {
    const image = typeof model === "object" && model !== null && "image" in model ? (model as { image: unknown }).image : undefined
    return new Set(typeof image === "object" && image !== null ? Object.keys(image) : [])
  })
}

/**
 * The configuration with `image.family` filled in for every image model that left it out, so the
 * catalogue shows it and the adapters never guess; and every option list the entry leaves out
 * (`sizes`, `qualities`, `styles`, `backgrounds`, `output_formats`, `max_n`) filled with its
 * family's own, so a model configured with aspect ratios alone still takes `size` and `n` from
 * the SDKs. Qualities are not filled in beside declared resolutions (one or the other, spec 4.5).
 */
export const withImageFamilies = (config: GatewayConfig, declared: ReadonlyArray<ReadonlySet<string>> = []): GatewayConfig => {
  const kinds = new Map(config.providers.map((p) => [p.id, p.kind]))
  const models = config.models.map((model, i): ModelConfig => {
    if (model.kind !== "image") return model
    const first = model.deployments[0]!
    const family = model.image?.family ?? inferImageFamily(kinds.get(first.provider)!, first.model)
    if (family === undefined) return model
    const keys = declared[i] ?? new Set<string>()
    const options = imageOptionsOf(model)
    const filled: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(familyImageDefaults(family))) {
      if (keys.has(key)) continue
      if (key === "qualities" && options.resolutions.length > 0) continue
      filled[key] = value
    }
    return { ...model, image: { ...options, ...filled, family } }
  })
  return { ...config, models }
}
