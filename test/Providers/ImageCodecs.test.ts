import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ImageOptions, ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import type { ImageJob } from "../../src/Domain/ImageRequest.ts"
import type { ImageFamily } from "../../src/Domain/ImageSettings.ts"
import { geminiImageBody, imagenPredictBody } from "../../src/Providers/Gemini/GeminiImageRequest.ts"
import { imageFromGemini, imagesFromImagen } from "../../src/Providers/Gemini/GeminiImageResponse.ts"
import { imageOptionsProblem } from "../../src/Providers/ImageFamilies.ts"
import { multipartBody } from "../../src/Providers/MultipartBody.ts"
import { openAiImageCall } from "../../src/Providers/OpenAi/OpenAiImageRequest.ts"
import { imagesFromOpenAi, openAiImageError } from "../../src/Providers/OpenAi/OpenAiImageResponse.ts"
import { profiles } from "../../src/Providers/OpenAiCompatible/Profiles.ts"
import { photoPng } from "../support/ImageUpstreams.ts"

const job = (fields: Partial<ImageJob> = {}): ImageJob => ({ prompt: "a fox", n: 1, referenceCount: 0, references: [], ...fields })
const target = (family: ImageFamily, upstreamModel = "m") => ({
  upstreamModel,
  family,
  model: Schema.decodeUnknownSync(ModelConfig)({ id: "x", kind: "image", deployments: [{ provider: "p", model: upstreamModel }] })
})
const openai = profiles["openai"]!.image
const png = { bytes: new Uint8Array(photoPng.bytes), mimeType: "image/png" }
const answer = (status: number) => ({ status, header: () => undefined })

describe("OpenAI image requests", () => {
  it("generations: every option in OpenAI's names; base64 asked for except from GPT image models", () => {
    expect(openAiImageCall(job({ n: 2, size: "1792x1024", quality: "hd", style: "natural", user: "u" }), target("dall-e-3", "dall-e-3"), openai)).toEqual({
      _tag: "Json",
      path: "/images/generations",
      body: { model: "dall-e-3", prompt: "a fox", n: 2, size: "1792x1024", quality: "hd", style: "natural", user: "u", response_format: "b64_json" }
    })
    expect(openAiImageCall(job({ aspectRatio: "3:2", background: "transparent", outputFormat: "webp", outputCompression: 60 }), target("gpt-image", "gpt-image-1"), openai)).toEqual({
      _tag: "Json",
      path: "/images/generations",
      body: { model: "gpt-image-1", prompt: "a fox", n: 1, size: "1536x1024", background: "transparent", output_format: "webp", output_compression: 60 }
    })
    const together = openAiImageCall(job({ aspectRatio: "16:9" }), target("openai-compatible", "flux"), profiles["together"]!.image)
    expect(together).toMatchObject({ body: { width: 1024, height: 576, response_format: "base64" } })
  })

  it("edits: GPT image models get data URLs in JSON; dall-e-2 and compatible servers a multipart upload", () => {
    const gpt = openAiImageCall(job({ references: [png, png], referenceCount: 2 }), target("gpt-image", "gpt-image-1"), openai)
    expect(gpt).toMatchObject({ _tag: "Json", path: "/images/edits" })
    expect((gpt as any).body.images).toEqual([{ image_url: `data:image/png;base64,${photoPng.bytes.toString("base64")}` }, { image_url: `data:image/png;base64,${photoPng.bytes.toString("base64")}` }])
    const dalle = openAiImageCall(job({ references: [png], referenceCount: 1, resolution: "512" }), target("dall-e-2", "dall-e-2"), openai)
    expect(dalle._tag).toBe("Multipart")
    if (dalle._tag !== "Multipart") return
    expect(dalle.fields).toEqual([["model", "dall-e-2"], ["prompt", "a fox"], ["n", "1"], ["size", "512x512"], ["response_format", "b64_json"]])
    expect(dalle.files.map((f) => [f.name, f.filename, f.contentType])).toEqual([["image", "image-1.png", "image/png"]])
    const several = openAiImageCall(job({ references: [png, png], referenceCount: 2 }), target("openai-compatible"), openai)
    expect(several._tag === "Multipart" && several.files.map((f) => f.name)).toEqual(["image[]", "image[]"])
  })

  it("a multipart body frames every field and file with one random boundary", () => {
    const form = multipartBody([["prompt", "a \"fox\""]], [{ name: "image", filename: "a.png", contentType: "image/png", bytes: photoPng.bytes }])
    const boundary = form.contentType.split("boundary=")[1]!
    const text = Buffer.from(form.body).toString("latin1")
    expect(text.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\na "fox"\r\n`)).toBe(true)
    expect(text.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true)
    expect(Buffer.from(form.body).includes(photoPng.bytes)).toBe(true)
    expect(multipartBody([], []).contentType).not.toBe(form.contentType)
  })
})

describe("OpenAI image answers", () => {
  it("reads base64 images, links, revised prompts, token usage and the settings GPT image models report", () => {
    expect(
      imagesFromOpenAi({
        created: 1,
        data: [{ b64_json: "QUJD", revised_prompt: "A fox, at dawn" }, { url: "https://files.example/1.png" }],
        usage: { input_tokens: 50, output_tokens: 4160, total_tokens: 4210, input_tokens_details: { text_tokens: 10, image_tokens: 40 } },
        size: "1024x1024",
        quality: "high",
        output_format: "png"
      })
    ).toEqual({
      images: [{ data: { _tag: "Base64", base64: "QUJD" }, revisedPrompt: "A fox, at dawn" }, { data: { _tag: "Url", url: "https://files.example/1.png" } }],
      usage: { inputTokens: 50, outputTokens: 4160, inputTextTokens: 10, inputImageTokens: 40 },
      size: "1024x1024",
      quality: "high",
      outputFormat: "png"
    })
    expect(imagesFromOpenAi({ data: [] })).toBe("the answer had no images")
    expect(imagesFromOpenAi({ data: [{ revised_prompt: "x" }] })).toMatch(/neither/)
    expect(imagesFromOpenAi([1])).toBeTypeOf("string")
  })

  it("a content-policy refusal, known by its error code, is a 400 on the prompt; other errors decode as usual", () => {
    for (const code of ["content_policy_violation", "moderation_blocked"]) {
      const error = openAiImageError("openai", answer(400), JSON.stringify({ error: { code, message: "Rejected by the safety system.", type: "invalid_request_error" } }))
      expect(error.reason).toMatchObject({ _tag: "InvalidRequest", param: "prompt", code: "content_policy_violation" })
    }
    // The same words without the code are an ordinary 400, never a policy refusal.
    const plain = openAiImageError("openai", answer(400), JSON.stringify({ error: { message: "content policy violation", param: "size", code: "invalid_value" } }))
    expect(plain.reason).toMatchObject({ _tag: "InvalidRequest", param: "size" })
    expect((plain.reason as any).code).toBeUndefined()
    expect(openAiImageError("openai", answer(500), "{}").reason).toMatchObject({ _tag: "UpstreamFailure", kind: "server" })
  })
})

describe("Gemini image requests and answers", () => {
  it("generateContent: prompt then input images, image output, imageConfig only when set", () => {
    expect(geminiImageBody(job())).toEqual({ contents: [{ role: "user", parts: [{ text: "a fox" }] }], generationConfig: { responseModalities: ["TEXT", "IMAGE"] } })
    const body = geminiImageBody(job({ aspectRatio: "4:3", resolution: "2K", references: [png], referenceCount: 1 }))
    expect(body.generationConfig.imageConfig).toEqual({ aspectRatio: "4:3", imageSize: "2K" })
    expect(body.contents[0]!.parts[1]).toEqual({ inlineData: { mimeType: "image/png", data: photoPng.bytes.toString("base64") } })
  })

  it("Imagen predict: sampleCount, aspectRatio, sampleImageSize and outputOptions", () => {
    expect(imagenPredictBody(job({ n: 3, aspectRatio: "9:16", resolution: "2K", outputFormat: "jpeg", outputCompression: 70 }))).toEqual({
      instances: [{ prompt: "a fox" }],
      parameters: { sampleCount: 3, aspectRatio: "9:16", sampleImageSize: "2K", outputOptions: { mimeType: "image/jpeg", compressionQuality: 70 } }
    })
    expect(() => imagenPredictBody(job({ aspectRatio: "21:9" }))).toThrow()
  })

  it("reads the first answer image (not a thought draft), and refusals from the block reason or finish reason", () => {
    const image = imageFromGemini({
      candidates: [
        {
          content: { parts: [{ text: "thinking", thought: true }, { inlineData: { mimeType: "image/png", data: "DRAFT" }, thought: true }, { inlineData: { mimeType: "image/png", data: "QUJD" } }] },
          finishReason: "STOP"
        }
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1290, thoughtsTokenCount: 100, candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }] }
    })
    expect(image).toEqual({
      _tag: "Images",
      images: [{ data: { _tag: "Base64", base64: "QUJD" } }],
      usage: { inputTokens: 10, outputTokens: 1390, outputTextTokens: 100, outputImageTokens: 1290 }
    })
    expect(imageFromGemini({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" } })).toEqual({ _tag: "Refused", reason: "PROHIBITED_CONTENT" })
    expect(imageFromGemini({ candidates: [{ finishReason: "IMAGE_SAFETY" }] })).toEqual({ _tag: "Refused", reason: "IMAGE_SAFETY" })
    expect(imageFromGemini({ candidates: [{ content: { parts: [{ text: "I can only describe it." }] }, finishReason: "STOP" }] })).toMatchObject({ _tag: "NoImage" })
  })

  it("Imagen: its images; none left after its filters is a refusal", () => {
    expect(imagesFromImagen({ predictions: [{ bytesBase64Encoded: "QUJD", mimeType: "image/png" }, { raiFilteredReason: "filtered" }] })).toEqual({
      _tag: "Images",
      images: [{ data: { _tag: "Base64", base64: "QUJD" } }]
    })
    expect(imagesFromImagen({ predictions: [{ raiFilteredReason: "filtered" }] })).toMatchObject({ _tag: "Refused" })
    expect(imagesFromImagen({})).toMatchObject({ _tag: "Refused" })
  })
})

describe("declared image options against their family", () => {
  const options = (fields: Record<string, unknown>) => Schema.decodeUnknownSync(ImageOptions)(fields)
  it("names the first value the family cannot send upstream", () => {
    expect(imageOptionsProblem(options({ aspect_ratios: ["1:1", "3:2"], qualities: ["low"] }), "gpt-image", openai)).toBeUndefined()
    expect(imageOptionsProblem(options({ aspect_ratios: ["16:9"] }), "gpt-image", openai)).toEqual({ path: "image.aspect_ratios", problem: 'gpt-image cannot make aspect ratio "16:9"' })
    expect(imageOptionsProblem(options({ qualities: ["hd"] }), "gpt-image", openai)?.path).toBe("image.qualities")
    expect(imageOptionsProblem(options({ styles: ["vivid"] }), "gpt-image", openai)?.path).toBe("image.styles")
    expect(imageOptionsProblem(options({ max_n: 2 }), "dall-e-3", openai)?.path).toBe("image.max_n")
    expect(imageOptionsProblem(options({ image_input: true }), "imagen", openai)?.path).toBe("image.image_input")
    expect(imageOptionsProblem(options({ output_formats: ["webp"] }), "imagen", openai)?.path).toBe("image.output_formats")
    expect(imageOptionsProblem(options({ sizes: ["1792x1024"] }), "dall-e-2", openai)?.path).toBe("image.sizes")
    expect(imageOptionsProblem(options({ aspect_ratios: ["auto"], resolutions: ["2K"] }), "openai-compatible", profiles["together"]!.image)).toEqual({
      path: "image.aspect_ratios",
      problem: 'openai-compatible cannot make aspect ratio "auto" at resolution "2K"'
    })
    expect(imageOptionsProblem(options({ aspect_ratios: ["auto", "16:9"], resolutions: ["2K"], qualities: [] }), "openai-compatible", profiles["xai"]!.image)).toBeUndefined()
  })
})
