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
 * The `response_format` of a request that gives none: `url` (spec 4.5), except for GPT image
 * models, which on OpenAI always answer base64; clients that know those model names (the Vercel
 * AI SDK) leave the field out and read `b64_json`.
 */
export const imageResponseFormat = (request: { readonly responseFormat?: "url" | "b64_json" }, model: ModelConfig): "url" | "b64_json" =>
  request.responseFormat ?? (imageFamilyOf(model) === "gpt-image" ? "b64_json" : "url")

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
  if (upstream.startsWith("dall-e-2")) return "dall-e-2"
  if (upstream.startsWith("dall-e-3")) return "dall-e-3"
  return /^(gpt-image|chatgpt-image)/.test(upstream) ? "gpt-image" : "openai-compatible"
}
