import type { Pricing } from "./GatewayConfig.ts"
import type { ImageResult, ImageUsage } from "./ImageResult.ts"

/** One image of a response (spec 2.8): exactly one of `url` or `b64_json`, and `revised_prompt` when there is one. */
export type ImageObjectWire =
  | { readonly url: string; readonly revised_prompt?: string }
  | { readonly b64_json: string; readonly revised_prompt?: string }

export interface ImageUsageWire {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly total_tokens: number
  readonly input_tokens_details?: { readonly text_tokens: number; readonly image_tokens: number }
  readonly output_tokens_details?: { readonly text_tokens: number; readonly image_tokens: number }
  /** Per-image-billed models: how many images were made (their token counts are all zero). */
  readonly image_count?: number
}

/**
 * Token usage with both detail objects. Where the upstream does not split a side, the rest of
 * the input is text and the rest of the output is image: what an image model reads and makes.
 */
export const tokenUsageWire = (usage: ImageUsage | undefined): ImageUsageWire => {
  const input = usage?.inputTokens ?? 0
  const output = usage?.outputTokens ?? 0
  const inputImage = usage?.inputImageTokens ?? 0
  const outputText = usage?.outputTextTokens ?? 0
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_tokens_details: { text_tokens: usage?.inputTextTokens ?? Math.max(0, input - inputImage), image_tokens: inputImage },
    output_tokens_details: { text_tokens: outputText, image_tokens: usage?.outputImageTokens ?? Math.max(0, output - outputText) }
  }
}

/** A model with a per-image price is billed per image; any other is billed by its tokens. */
export const billedPerImage = (pricing: Pricing): boolean => pricing.per_image !== undefined

/** `usage` of `POST /v1/images` (spec 4.5). */
export const imagesUsageWire = (result: ImageResult, pricing: Pricing): ImageUsageWire =>
  billedPerImage(pricing)
    ? { input_tokens: 0, output_tokens: 0, total_tokens: 0, image_count: result.images.length }
    : tokenUsageWire(result.usage)

/** Settings the upstream reported, in the OpenAI field names (they are OpenAI's). */
export const reportedSettings = (result: ImageResult): Record<string, string> => {
  const out: Record<string, string> = {}
  if (result.size !== undefined) out["size"] = result.size
  if (result.quality !== undefined) out["quality"] = result.quality
  if (result.background !== undefined) out["background"] = result.background
  if (result.outputFormat !== undefined) out["output_format"] = result.outputFormat
  return out
}
