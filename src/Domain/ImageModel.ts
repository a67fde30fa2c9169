import type { ImageOptions, ModelConfig, ProviderKind } from "./GatewayConfig.ts"
import type { ImageFamily } from "./ImageSettings.ts"

/** What an image model without an `image` block offers: nothing beyond a prompt and one image. */
export const noImageOptions: ImageOptions = {
  aspect_ratios: [],
  qualities: [],
  resolutions: [],
  sizes: [],
  output_formats: [],
  image_input: false,
  styles: [],
  backgrounds: [],
  max_n: 1,
  prompt_rewriting: false,
  max_input_images: 1
}

export const imageOptionsOf = (model: ModelConfig): ImageOptions => model.image ?? noImageOptions

/**
 * The family a model speaks when its catalogue entry does not say: Gemini providers serve
 * Imagen (`imagen-*`) through `:predict` and every other model through `generateContent`;
 * OpenAI serves `dall-e-2`, `dall-e-3` and otherwise its GPT image models; an OpenAI-compatible
 * server is `openai-compatible`. Anthropic has no image API.
 */
export const inferImageFamily = (kind: ProviderKind, upstreamModel: string): ImageFamily | undefined => {
  switch (kind) {
    case "gemini":
      return upstreamModel.startsWith("imagen") ? "imagen" : "gemini"
    case "openai":
      return upstreamModel.startsWith("dall-e-2") ? "dall-e-2" : upstreamModel.startsWith("dall-e-3") ? "dall-e-3" : "gpt-image"
    case "openai-compatible":
      return "openai-compatible"
    case "anthropic":
      return undefined
  }
}

/**
 * The family of a model. The configuration loader fills `image.family` in for every image model;
 * a model built elsewhere (tests) falls back to its first deployment's model name.
 */
export const imageFamilyOf = (model: ModelConfig): ImageFamily => {
  const declared = model.image?.family
  if (declared !== undefined) return declared
  const upstream = model.deployments[0]?.model ?? ""
  if (upstream.startsWith("imagen")) return "imagen"
  if (upstream.startsWith("gemini")) return "gemini"
  return inferImageFamily("openai", upstream) === "gpt-image" && !/^(gpt-image|chatgpt-image)/.test(upstream)
    ? "openai-compatible"
    : inferImageFamily("openai", upstream)!
}
