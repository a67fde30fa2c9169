import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { geminiImageSize } from "../../src/Providers/Gemini/GeminiImageSize.ts"
import { openAiImageSize, pixelsOf } from "../../src/Providers/OpenAi/OpenAiImageSize.ts"
import { profiles } from "../../src/Providers/OpenAiCompatible/Profiles.ts"

const openai = profiles["openai"]!.image
const together = profiles["together"]!.image
const xai = profiles["xai"]!.image

describe("OpenAI image sizes", () => {
  it("GPT image models: the provider-neutral aspect ratios become their three sizes or auto; no resolution", () => {
    const size = (aspectRatio?: string, resolution?: string) => openAiImageSize("gpt-image", openai, { aspectRatio, resolution })
    expect(size()).toEqual({})
    expect(size("auto")).toEqual({ size: "auto" })
    expect(size("1:1")).toEqual({ size: "1024x1024" })
    expect(size("3:2")).toEqual({ size: "1536x1024" })
    expect(size("2:3")).toEqual({ size: "1024x1536" })
    expect(size("16:9")).toBeUndefined()
    expect(size("1:1", "1K")).toBeUndefined()
  })

  it("dall-e-3: square, wide and tall; dall-e-2: squares, sized by the resolution token", () => {
    expect(openAiImageSize("dall-e-3", openai, { aspectRatio: "16:9" })).toEqual({ size: "1792x1024" })
    expect(openAiImageSize("dall-e-3", openai, { aspectRatio: "9:16" })).toEqual({ size: "1024x1792" })
    expect(openAiImageSize("dall-e-3", openai, { aspectRatio: "1:1" })).toEqual({ size: "1024x1024" })
    expect(openAiImageSize("dall-e-3", openai, { aspectRatio: "3:2" })).toBeUndefined()
    expect(openAiImageSize("dall-e-2", openai, { resolution: "512" })).toEqual({ size: "512x512" })
    expect(openAiImageSize("dall-e-2", openai, { aspectRatio: "1:1", resolution: "1K" })).toEqual({ size: "1024x1024" })
    expect(openAiImageSize("dall-e-2", openai, { aspectRatio: "1:1" })).toEqual({ size: "1024x1024" })
    expect(openAiImageSize("dall-e-2", openai, { resolution: "2K" })).toBeUndefined()
    expect(openAiImageSize("dall-e-2", openai, { aspectRatio: "16:9" })).toBeUndefined()
  })

  it("an OpenAI size is sent as it is, when the family has it", () => {
    expect(openAiImageSize("dall-e-2", openai, { size: "256x256" })).toEqual({ size: "256x256" })
    expect(openAiImageSize("dall-e-3", openai, { size: "256x256" })).toBeUndefined()
    expect(openAiImageSize("gpt-image", openai, { size: "auto" })).toEqual({ size: "auto" })
    expect(openAiImageSize("gpt-image", openai, { size: "1024x1024", aspectRatio: "1:1" })).toBeUndefined()
  })

  it("compatible servers: pixels at the resolution's edge, as size or width/height; or aspect_ratio and a lower-case resolution", () => {
    expect(openAiImageSize("openai-compatible", openai, { aspectRatio: "16:9", resolution: "2K" })).toEqual({ size: "2048x1152" })
    expect(openAiImageSize("openai-compatible", openai, { aspectRatio: "9:16" })).toEqual({ size: "576x1024" })
    expect(openAiImageSize("openai-compatible", together, { aspectRatio: "3:2" })).toEqual({ width: 1024, height: 688 })
    expect(openAiImageSize("openai-compatible", together, { resolution: "512" })).toEqual({ width: 512, height: 512 })
    expect(openAiImageSize("openai-compatible", together, { size: "1280x720" })).toEqual({ width: 1280, height: 720 })
    expect(openAiImageSize("openai-compatible", together, { aspectRatio: "auto" })).toEqual({})
    // A server that takes pixels cannot pick a shape at a given resolution itself.
    expect(openAiImageSize("openai-compatible", together, { aspectRatio: "auto", resolution: "2K" })).toBeUndefined()
    expect(openAiImageSize("openai-compatible", together, { aspectRatio: "16:9", resolution: "auto" })).toBeUndefined()
    expect(openAiImageSize("openai-compatible", xai, { aspectRatio: "16:9", resolution: "2K" })).toEqual({ aspect_ratio: "16:9", resolution: "2k" })
    expect(openAiImageSize("openai-compatible", xai, { aspectRatio: "auto", resolution: "auto" })).toEqual({ aspect_ratio: "auto" })
    expect(openAiImageSize("openai-compatible", xai, { size: "1024x1024" })).toBeUndefined()
    expect(openAiImageSize("openai-compatible", openai, { size: "wide" })).toBeUndefined()
  })

  const Ratio = Schema.Struct({ a: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 21 })), b: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 21 })) })
  const Tier = Schema.Literals(["512", "1K", "2K", "4K"])
  it.prop("pixels keep the longer edge of the resolution and the shape, to the nearest 16 pixels", { ratio: Ratio, tier: Tier }, ({ ratio, tier }) => {
    const pixels = pixelsOf(`${ratio.a}:${ratio.b}`, tier)!
    const edge = { "512": 512, "1K": 1024, "2K": 2048, "4K": 4096 }[tier]
    // The exact short side, and the one sent: rounding to a multiple of 16 moves it by at most 8 pixels.
    const short = (edge * Math.min(ratio.a, ratio.b)) / Math.max(ratio.a, ratio.b)
    const sent = Math.min(pixels.width, pixels.height)
    return (
      Math.max(pixels.width, pixels.height) === edge && pixels.width % 16 === 0 && pixels.height % 16 === 0 &&
      Math.abs(sent - short) <= 8 && (ratio.a >= ratio.b) === (pixels.width >= pixels.height)
    )
  })
})

describe("Gemini and Imagen image sizes", () => {
  it("aspect ratio and size tokens as Google names them; auto leaves the choice to the model", () => {
    expect(geminiImageSize("gemini", {})).toEqual({})
    expect(geminiImageSize("gemini", { aspectRatio: "auto", resolution: "auto" })).toEqual({})
    expect(geminiImageSize("gemini", { aspectRatio: "21:9", resolution: "4K" })).toEqual({ aspectRatio: "21:9", imageSize: "4K" })
    expect(geminiImageSize("gemini", { resolution: "512" })).toEqual({ imageSize: "512" })
    expect(geminiImageSize("gemini", { aspectRatio: "7:3" })).toBeUndefined()
    expect(geminiImageSize("imagen", { aspectRatio: "16:9", resolution: "2K" })).toEqual({ aspectRatio: "16:9", imageSize: "2K" })
    expect(geminiImageSize("imagen", { aspectRatio: "3:2" })).toBeUndefined()
    expect(geminiImageSize("imagen", { resolution: "4K" })).toBeUndefined()
  })

  it("a pixel size becomes the nearest aspect ratio within 5% and the size of its pixel count", () => {
    // Google's own 1K sizes are not exact ratios (16:9 is 1344x768).
    const google1K: Record<string, string> = {
      "1024x1024": "1:1",
      "832x1248": "2:3",
      "1248x832": "3:2",
      "864x1184": "3:4",
      "1184x864": "4:3",
      "896x1152": "4:5",
      "1152x896": "5:4",
      "768x1344": "9:16",
      "1344x768": "16:9",
      "1536x672": "21:9"
    }
    for (const [size, ratio] of Object.entries(google1K)) expect(geminiImageSize("gemini", { size }), size).toEqual({ aspectRatio: ratio })
    expect(geminiImageSize("gemini", { size: "2752x1536" })).toEqual({ aspectRatio: "16:9", imageSize: "2K" })
    expect(geminiImageSize("gemini", { size: "5504x3072" })).toEqual({ aspectRatio: "16:9", imageSize: "4K" })
    expect(geminiImageSize("gemini", { size: "512x512" })).toEqual({ aspectRatio: "1:1", imageSize: "512" })
    expect(geminiImageSize("gemini", { size: "auto" })).toEqual({})
    expect(geminiImageSize("gemini", { size: "1000x100" })).toBeUndefined()
    expect(geminiImageSize("imagen", { size: "4096x4096" })).toBeUndefined()
    expect(geminiImageSize("imagen", { size: "1408x768" })).toEqual({ aspectRatio: "16:9" })
    expect(geminiImageSize("imagen", { size: "1600x768" })).toBeUndefined()
    expect(geminiImageSize("imagen", { size: "2048x2048" })).toEqual({ aspectRatio: "1:1", imageSize: "2K" })
  })

  it("the pixels a compatible server would get for a Gemini ratio map back to that ratio", () => {
    for (const ratio of ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"]) {
      for (const tier of ["1K", "2K", "4K"]) {
        const { width, height } = pixelsOf(ratio, tier)!
        expect(geminiImageSize("gemini", { size: `${width}x${height}` })?.aspectRatio, `${ratio} ${tier}`).toBe(ratio)
      }
    }
  })
})
