import type { ImageFamily } from "../../Domain/ImageSettings.ts"
import type { ImageDimensions, ImageSupport } from "../ImageProvider.ts"
import type { ImageProfile } from "../OpenAiCompatible/Profiles.ts"

export type OpenAiImageFamily = Extract<ImageFamily, "dall-e-2" | "dall-e-3" | "gpt-image" | "openai-compatible">

/** The fields a request body gets for its dimensions: `size`, or `width`/`height`, or `aspect_ratio`/`resolution`. */
export type OpenAiSizeFields = Readonly<Record<string, string | number>>

/**
 * The sizes each OpenAI model family takes, and the size each provider-neutral aspect ratio of
 * `POST /v1/images` becomes (OpenAI's landscape and portrait sizes are its nearest shapes).
 * @see https://platform.openai.com/docs/api-reference/images/create
 */
const fixedSizes: Record<Exclude<OpenAiImageFamily, "openai-compatible">, ReadonlyArray<string>> = {
  "dall-e-2": ["256x256", "512x512", "1024x1024"],
  "dall-e-3": ["1024x1024", "1792x1024", "1024x1792"],
  "gpt-image": ["1024x1024", "1536x1024", "1024x1536", "auto"]
}
/** The sizes an OpenAI family takes; `undefined` for a compatible server (each has its own). */
export const openAiFamilySizes = (family: OpenAiImageFamily): ReadonlyArray<string> | undefined =>
  family === "openai-compatible" ? undefined : fixedSizes[family]

const aspectSizes: Record<"dall-e-3" | "gpt-image", Readonly<Record<string, string>>> = {
  "dall-e-3": { "1:1": "1024x1024", "16:9": "1792x1024", "9:16": "1024x1792" },
  "gpt-image": { "auto": "auto", "1:1": "1024x1024", "3:2": "1536x1024", "2:3": "1024x1536" }
}
/** `dall-e-2` makes squares only; its resolution tokens are its two larger squares. */
const dallE2Squares: Readonly<Record<string, string>> = { "512": "512x512", "1K": "1024x1024" }

/** The longer edge of each resolution token, for servers that take pixels. */
export const resolutionEdges: Readonly<Record<string, number>> = { "512": 512, "1K": 1024, "2K": 2048, "4K": 4096 }

const pixelSize = /^([1-9]\d{1,4})x([1-9]\d{1,4})$/
const ratioPattern = /^([1-9]\d*(?:\.\d+)?):([1-9]\d*(?:\.\d+)?)$/

const roundTo16 = (value: number) => Math.max(16, Math.round(value / 16) * 16)

/** `a:b` at a resolution's longer edge, both sides multiples of 16 (what diffusion servers take). */
export const pixelsOf = (aspectRatio: string, resolution: string): { readonly width: number; readonly height: number } | undefined => {
  const ratio = ratioPattern.exec(aspectRatio)
  const edge = resolutionEdges[resolution]
  if (ratio === null || edge === undefined) return undefined
  const [a, b] = [Number(ratio[1]), Number(ratio[2])]
  return a >= b ? { width: edge, height: roundTo16((edge * b) / a) } : { width: roundTo16((edge * a) / b), height: edge }
}

const asProfile = (profile: ImageProfile, width: number, height: number): OpenAiSizeFields =>
  profile.dimensions === "width_height" ? { width, height } : { size: `${width}x${height}` }

const compatibleSize = (profile: ImageProfile, size: string): OpenAiSizeFields | undefined => {
  if (size === "auto") return profile.dimensions === "size" ? { size } : {}
  const match = pixelSize.exec(size)
  if (match === null || profile.dimensions === "aspect_ratio") return undefined
  return asProfile(profile, Number(match[1]), Number(match[2]))
}

const compatibleDimensions = (profile: ImageProfile, { aspectRatio, resolution }: ImageDimensions): OpenAiSizeFields | undefined => {
  if (profile.dimensions === "aspect_ratio") {
    if (aspectRatio !== undefined && aspectRatio !== "auto" && !ratioPattern.test(aspectRatio)) return undefined
    if (resolution !== undefined && resolution !== "auto" && resolutionEdges[resolution] === undefined) return undefined
    return {
      ...(aspectRatio === undefined ? {} : { aspect_ratio: aspectRatio }),
      ...(resolution === undefined || resolution === "auto" ? {} : { resolution: resolution.toLowerCase() })
    }
  }
  // A server that takes pixels cannot choose a shape or a resolution itself: `auto` goes only alone.
  if (aspectRatio === "auto" || resolution === "auto") {
    return (aspectRatio ?? "auto") === "auto" && (resolution ?? "auto") === "auto" ? {} : undefined
  }
  if (aspectRatio === undefined && resolution === undefined) return {}
  const pixels = pixelsOf(aspectRatio ?? "1:1", resolution ?? "1K")
  return pixels === undefined ? undefined : asProfile(profile, pixels.width, pixels.height)
}

/**
 * The size parameters of one OpenAI-style request: an OpenAI size from `/v1/images/generations`
 * is sent as it is (when the family takes it); an aspect ratio and resolution from `/v1/images`
 * become the family's nearest size, or pixels at the resolution's longer edge for compatible
 * servers (1:1 and 1K when one of the two is absent). `undefined`: the family cannot express
 * it (the configuration check refuses such catalogue values at start-up).
 */
export const openAiImageSize = (family: OpenAiImageFamily, profile: ImageProfile, ask: ImageDimensions): OpenAiSizeFields | undefined => {
  if (ask.size !== undefined) {
    if (ask.aspectRatio !== undefined || ask.resolution !== undefined) return undefined
    return family === "openai-compatible" ? compatibleSize(profile, ask.size) : fixedSizes[family].includes(ask.size) ? { size: ask.size } : undefined
  }
  switch (family) {
    case "dall-e-2": {
      if (ask.aspectRatio !== undefined && ask.aspectRatio !== "1:1") return undefined
      if (ask.resolution === undefined) return ask.aspectRatio === undefined ? {} : { size: "1024x1024" }
      const size = dallE2Squares[ask.resolution]
      return size === undefined ? undefined : { size }
    }
    case "dall-e-3":
    case "gpt-image": {
      if (ask.resolution !== undefined) return undefined
      if (ask.aspectRatio === undefined) return {}
      const size = aspectSizes[family][ask.aspectRatio]
      return size === undefined ? undefined : { size }
    }
    case "openai-compatible":
      return compatibleDimensions(profile, ask)
  }
}

/** What each OpenAI family takes besides its sizes. @see https://platform.openai.com/docs/guides/image-generation */
export const openAiImageSupport = (family: OpenAiImageFamily): ImageSupport => {
  switch (family) {
    case "dall-e-2":
      return { qualities: ["standard"], styles: [], backgrounds: [], outputFormats: [], maxN: 10, maxInputImages: 1 }
    case "dall-e-3":
      return { qualities: ["standard", "hd", "auto"], styles: ["vivid", "natural"], backgrounds: [], outputFormats: [], maxN: 1, maxInputImages: 0 }
    case "gpt-image":
      return {
        qualities: ["auto", "low", "medium", "high"],
        styles: [],
        backgrounds: ["transparent", "opaque", "auto"],
        outputFormats: ["png", "jpeg", "webp"],
        maxN: 10,
        maxInputImages: 16
      }
    case "openai-compatible":
      return { qualities: undefined, styles: undefined, backgrounds: undefined, outputFormats: undefined, maxN: 10, maxInputImages: 16 }
  }
}
