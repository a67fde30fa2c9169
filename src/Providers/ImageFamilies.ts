import type { ImageOptions } from "../Domain/GatewayConfig.ts"
import type { ImageFamily } from "../Domain/ImageSettings.ts"
import { geminiImageSize, geminiImageSupport } from "./Gemini/GeminiImageSize.ts"
import type { ImageDimensions, ImageSupport } from "./ImageProvider.ts"
import { openAiFamilySizes, openAiImageSize, openAiImageSupport } from "./OpenAi/OpenAiImageSize.ts"
import type { ImageProfile } from "./OpenAiCompatible/Profiles.ts"

/** The size parameters of a request for a family (and, for OpenAI-style servers, their profile). */
export const imageSizeFields = (family: ImageFamily, profile: ImageProfile, ask: ImageDimensions): object | undefined =>
  family === "gemini" || family === "imagen" ? geminiImageSize(family, ask) : openAiImageSize(family, profile, ask)

export const imageSupport = (family: ImageFamily): ImageSupport =>
  family === "gemini" || family === "imagen" ? geminiImageSupport(family) : openAiImageSupport(family)

/** OpenAI-style sizes tried on the Gemini families: those their aspect ratios and sizes express. */
const commonSizes = ["auto", "256x256", "512x512", "1024x1024", "1536x1024", "1024x1536", "1792x1024", "1024x1792", "2048x2048"]

/**
 * What a family offers where a catalogue entry declares nothing: its own sizes, qualities,
 * styles, backgrounds, output formats and largest `n`. A compatible server's lists are its own
 * and unknown here, so it gets none (and `max_n` stays 1).
 */
export const familyImageDefaults = (family: ImageFamily): Partial<Pick<ImageOptions, "sizes" | "qualities" | "styles" | "backgrounds" | "output_formats" | "max_n">> => {
  if (family === "openai-compatible") return {}
  const support = imageSupport(family)
  const sizes = family === "gemini" || family === "imagen"
    ? commonSizes.filter((size) => geminiImageSize(family, { size }) !== undefined)
    : openAiFamilySizes(family)
  return {
    ...(sizes === undefined ? {} : { sizes }),
    ...(support.qualities === undefined ? {} : { qualities: support.qualities }),
    ...(support.styles === undefined ? {} : { styles: support.styles }),
    ...(support.backgrounds === undefined ? {} : { backgrounds: support.backgrounds }),
    ...(support.outputFormats === undefined ? {} : { output_formats: support.outputFormats }),
    max_n: support.maxN
  }
}

export interface OptionProblem {
  /** Path inside the model's entry, e.g. `image.qualities`. */
  readonly path: string
  readonly problem: string
}

const outside = (declared: ReadonlyArray<string>, allowed: ReadonlyArray<string> | undefined): string | undefined =>
  allowed === undefined ? undefined : declared.find((value) => !allowed.includes(value))

/**
 * The first value a catalogue entry declares that its family (on a provider with this profile)
 * cannot send upstream, checked at start-up: so every value `GET /v1/models` shows is one the
 * upstream receives in its own form, and the request path never meets one it cannot translate.
 * Aspect ratios and resolutions are checked in every combination a request can make.
 */
export const imageOptionsProblem = (options: ImageOptions, family: ImageFamily, profile: ImageProfile): OptionProblem | undefined => {
  const support = imageSupport(family)
  const lists = [
    ["qualities", options.qualities, support.qualities],
    ["styles", options.styles, support.styles],
    ["backgrounds", options.backgrounds, support.backgrounds],
    ["output_formats", options.output_formats, support.outputFormats]
  ] as const
  for (const [key, declared, allowed] of lists) {
    const bad = outside(declared, allowed)
    if (bad !== undefined) {
      return { path: `image.${key}`, problem: `"${bad}" is not one of ${family}'s values (${allowed!.join(", ") || "none"})` }
    }
  }
  if (options.max_n > support.maxN) return { path: "image.max_n", problem: `${family} makes at most ${support.maxN} images per request` }
  if (options.image_input) {
    if (support.maxInputImages === 0) return { path: "image.image_input", problem: `${family} takes no input images` }
    if (options.max_input_images > support.maxInputImages) {
      return { path: "image.max_input_images", problem: `${family} takes at most ${support.maxInputImages} input images` }
    }
  }
  for (const size of options.sizes) {
    if (imageSizeFields(family, profile, { size }) === undefined) return { path: "image.sizes", problem: `${family} cannot make size "${size}"` }
  }
  for (const aspectRatio of [undefined, ...options.aspect_ratios]) {
    for (const resolution of [undefined, ...options.resolutions]) {
      if (imageSizeFields(family, profile, { aspectRatio, resolution }) === undefined) {
        const what = [aspectRatio === undefined ? undefined : `aspect ratio "${aspectRatio}"`, resolution === undefined ? undefined : `resolution "${resolution}"`]
          .filter((part) => part !== undefined)
          .join(" at ")
        return { path: aspectRatio === undefined ? "image.resolutions" : "image.aspect_ratios", problem: `${family} cannot make ${what}` }
      }
    }
  }
  return undefined
}
