import type { ImageFamily } from "../../Domain/ImageSettings.ts"
import type { ImageDimensions, ImageSupport } from "../ImageProvider.ts"

export type GeminiImageFamily = Extract<ImageFamily, "gemini" | "imagen">

/**
 * `imageConfig.aspectRatio`/`imageSize` of `generateContent`, or `parameters.aspectRatio`/
 * `sampleImageSize` of Imagen's `:predict`; absent fields leave the model's default.
 */
export interface GeminiSizeFields {
  readonly aspectRatio?: string
  readonly imageSize?: string
}

/**
 * The aspect ratios and sizes each family takes.
 * @see https://ai.google.dev/gemini-api/docs/image-generation#aspect_ratios_and_image_size
 * @see https://ai.google.dev/gemini-api/docs/imagen#imagen-configuration
 */
const ratios: Record<GeminiImageFamily, ReadonlyArray<string>> = {
  gemini: ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9", "1:4", "4:1", "1:8", "8:1"],
  imagen: ["1:1", "3:4", "4:3", "9:16", "16:9"]
}
const imageSizes: Record<GeminiImageFamily, ReadonlyArray<string>> = {
  gemini: ["512", "1K", "2K", "4K"],
  imagen: ["1K", "2K"]
}
/** The size both families use when none is sent. */
const defaultSize = "1K"

const pixelSize = /^([1-9]\d{1,4})x([1-9]\d{1,4})$/
const ratioValue = (ratio: string) => {
  const [a, b] = ratio.split(":").map(Number)
  return a! / b!
}

/** The size token of a pixel count: the tokens stand for about 0.25, 1, 4 and 16 megapixels. */
const sizeOfArea = (pixels: number): string => (pixels < 500_000 ? "512" : pixels < 2_200_000 ? "1K" : pixels < 8_500_000 ? "2K" : "4K")

/**
 * A `WxH` size (from `/v1/images/generations`) as the family's aspect ratio within 5% of its
 * shape (Google's own pixel sizes are not exact ratios: 16:9 at 1K is 1344x768) and the size
 * token of its pixel count; the default size is left unsent.
 */
const fromPixels = (family: GeminiImageFamily, size: string): GeminiSizeFields | undefined => {
  if (size === "auto") return {}
  const match = pixelSize.exec(size)
  if (match === null) return undefined
  const [width, height] = [Number(match[1]), Number(match[2])]
  const shape = width / height
  let best: string | undefined
  for (const ratio of ratios[family]) {
    const error = Math.abs(ratioValue(ratio) - shape) / shape
    if (error <= 0.05 && (best === undefined || error < Math.abs(ratioValue(best) - shape) / shape)) best = ratio
  }
  const token = sizeOfArea(width * height)
  if (best === undefined || !imageSizes[family].includes(token)) return undefined
  return { aspectRatio: best, ...(token === defaultSize ? {} : { imageSize: token }) }
}

/**
 * The size parameters of one Gemini or Imagen call. `auto` (or nothing) leaves the choice to the
 * model: Gemini then follows the input images' shape. `undefined`: the family cannot express
 * the value (the configuration check refuses such catalogue values at start-up).
 */
export const geminiImageSize = (family: GeminiImageFamily, ask: ImageDimensions): GeminiSizeFields | undefined => {
  if (ask.size !== undefined) return ask.aspectRatio === undefined && ask.resolution === undefined ? fromPixels(family, ask.size) : undefined
  const fields: { aspectRatio?: string; imageSize?: string } = {}
  if (ask.aspectRatio !== undefined && ask.aspectRatio !== "auto") {
    if (!ratios[family].includes(ask.aspectRatio)) return undefined
    fields.aspectRatio = ask.aspectRatio
  }
  if (ask.resolution !== undefined && ask.resolution !== "auto") {
    if (!imageSizes[family].includes(ask.resolution)) return undefined
    fields.imageSize = ask.resolution
  }
  return fields
}

/**
 * Gemini makes one image per `generateContent` call (the adapter makes `n` calls) and reads
 * input images; Imagen makes up to four per call, as PNG or JPEG, and reads none.
 */
export const geminiImageSupport = (family: GeminiImageFamily): ImageSupport =>
  family === "gemini"
    ? { qualities: [], styles: [], backgrounds: [], outputFormats: [], maxN: 10, maxInputImages: 14 }
    : { qualities: [], styles: [], backgrounds: [], outputFormats: ["png", "jpeg"], maxN: 4, maxInputImages: 0 }
