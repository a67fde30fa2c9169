import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { ModelConfig, Pricing } from "../../src/Domain/GatewayConfig.ts"
import { imageCostBoundNanoUsd, referenceTokenAllowance } from "../../src/Domain/ImageCost.ts"
import { checkImageAsk } from "../../src/Domain/ImageGate.ts"
import { imageFamilyOf, imageResponseFormat, inferImageFamily } from "../../src/Domain/ImageModel.ts"
import type { ImageRequest } from "../../src/Domain/ImageRequest.ts"
import { decodeImageGenerationRequest, decodeImageRequest, isDecodableBase64 } from "../../src/Domain/ImageRequestDecoder.ts"
import { imagesUsageWire, tokenUsageWire } from "../../src/Domain/ImageResultWire.ts"

type Body = Record<string, unknown>
const run = (effect: Effect.Effect<ImageRequest, unknown>) => Effect.runSyncExit(effect)
const ok = (effect: Effect.Effect<ImageRequest, unknown>): ImageRequest => {
  const exit = run(effect)
  if (Exit.isFailure(exit)) throw new Error(`expected success, got ${String(exit.cause)}`)
  return exit.value
}
const rejection = (effect: Effect.Effect<ImageRequest, any>) => {
  const exit = run(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  const error = (reason.error as any).reason
  return { param: error.param as string | undefined, code: error.code as string | undefined, message: error.message as string }
}
const generations = (body: Body) => decodeImageGenerationRequest({ model: "m", prompt: "p", ...body })
const images = (body: Body) => decodeImageRequest({ model: "m", prompt: "p", ...body })
const model = (image: Body = {}, fields: Body = {}) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "img", kind: "image", deployments: [{ provider: "p", model: "gpt-image-1" }], image, ...fields })

describe("image request decoding", () => {
  it("generations: the fields of spec 4.5, defaults, the safety_identifier alias and nulls as absent", () => {
    expect(ok(generations({}))).toEqual({ endpoint: "generations", model: "m", prompt: "p", n: 1, references: [], referenceCount: 0 })
    expect(
      ok(generations({ n: 2, size: "1024x1024", quality: "hd", style: "vivid", background: "auto", response_format: "b64_json", safety_identifier: "u-1", output_format: "jpeg", output_compression: 80 }))
    ).toMatchObject({ n: 2, size: "1024x1024", quality: "hd", style: "vivid", background: "auto", responseFormat: "b64_json", user: "u-1", outputFormat: "jpeg", outputCompression: 80 })
    expect(ok(generations({ user: "a", safety_identifier: "b" })).user).toBe("a")
    expect(ok(generations({ n: null, size: null, stream: false }))).toEqual(ok(generations({})))
  })

  it("images: aspect ratio, resolution and the three kinds of input reference; always b64_json", () => {
    const request = ok(
      images({
        aspect_ratio: "16:9",
        resolution: "2K",
        input_references: [
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "file-abc_123" } },
          { type: "image_url", image_url: { file_id: "file-xyz" } }
        ]
      })
    )
    expect(request).toMatchObject({ endpoint: "images", aspectRatio: "16:9", resolution: "2K", responseFormat: "b64_json", referenceCount: 4 })
    expect(request.references).toEqual([
      { _tag: "Url", url: "https://example.com/a.png", param: "input_references[0].image_url.url" },
      { _tag: "Data", mimeType: "image/png", base64: "iVBORw0KGgo=", param: "input_references[1].image_url.url" },
      { _tag: "File", fileId: "file-abc_123", param: "input_references[2].image_url.url" },
      { _tag: "File", fileId: "file-xyz", param: "input_references[3].image_url.file_id" }
    ])
  })

  it("refuses each bad field by name", () => {
    const cases: Array<[Effect.Effect<ImageRequest, any>, string]> = [
      [decodeImageGenerationRequest({ prompt: "p" }), "model"],
      [decodeImageGenerationRequest({ model: "m" }), "prompt"],
      [generations({ prompt: "  " }), "prompt"],
      [generations({ n: 0 }), "n"],
      [generations({ n: 11 }), "n"],
      [generations({ n: 1.5 }), "n"],
      [generations({ size: 1024 }), "size"],
      [generations({ response_format: "png" }), "response_format"],
      [generations({ output_compression: 101 }), "output_compression"],
      [generations({ stream: true }), "stream"],
      [generations({ aspect_ratio: "1:1" }), "aspect_ratio"],
      [generations({ partial_images: 2 }), "partial_images"],
      [images({ size: "1024x1024" }), "size"],
      [images({ response_format: "url" }), "response_format"],
      [images({ input_references: "https://x" }), "input_references"],
      [images({ input_references: ["https://x"] }), "input_references[0]"],
      [images({ input_references: [{ image_url: { url: "https://x" } }] }), "input_references[0].type"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "https://x" }, detail: "high" }] }), "input_references[0].detail"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "https://x", detail: "high" } }] }), "input_references[0].image_url.detail"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "data:image/png;base64,****" } }] }), "input_references[0].image_url.url"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "data:image/png;base64,A" } }] }), "input_references[0].image_url.url"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "data:text/plain,hello" } }] }), "input_references[0].image_url.url"],
      [images({ input_references: [{ type: "image_url", image_url: { url: "javascript:alert(1)" } }] }), "input_references[0].image_url.url"],
      [images({ input_references: [{ type: "image_url", image_url: { file_id: "nope" } }] }), "input_references[0].image_url.file_id"],
      [images({ input_references: Array.from({ length: 65 }, () => ({ type: "image_url", image_url: { url: "file-a" } })) }), "input_references"]
    ]
    for (const [effect, param] of cases) expect(rejection(effect).param, param).toBe(param)
    expect(rejection(generations({ moderation: "low" }))).toMatchObject({ code: "unknown_parameter" })
  })

  it("base64 that decodes is told apart from base64 that does not", () => {
    for (const good of ["iVBORw0KGgo=", "iVBORw0KGgo", "QQ==", "QUJD", "QU JD\n"]) expect(isDecodableBase64(good), good).toBe(true)
    for (const bad of ["", "A", "QQ=", "QQ===", "Q*==", "====", "QUJD=A"]) expect(isDecodableBase64(bad), bad).toBe(false)
  })

  it.prop("any bytes written as base64 count as decodable", { bytes: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 255 }))).check(Schema.isMinLength(1)) }, ({ bytes }) => {
    const text = Buffer.from(bytes).toString("base64")
    return isDecodableBase64(text) && isDecodableBase64(text.replace(/=+$/, ""))
  })
})

describe("the catalogue gate (spec 4.5 rule 2)", () => {
  const declared = model({ sizes: ["1024x1024"], qualities: ["low", "high"], aspect_ratios: ["1:1"], output_formats: ["png", "jpeg"], max_n: 2, image_input: true, max_input_images: 2 })
  const ask = (fields: Partial<ImageRequest> = {}) => ({ n: 1, referenceCount: 0, ...fields })

  it("accepts every declared value and refuses the rest, naming the field", () => {
    expect(checkImageAsk(ask({ size: "1024x1024", quality: "high", outputFormat: "jpeg", outputCompression: 10, n: 2, referenceCount: 2 }), declared)).toBeUndefined()
    expect(checkImageAsk(ask({ aspectRatio: "1:1", quality: "low" }), declared)).toBeUndefined()
    const refused = (fields: Partial<ImageRequest>) => checkImageAsk(ask(fields), declared)?.reason as any
    expect(refused({ size: "1792x1024" })).toMatchObject({ param: "size", code: "unsupported_value" })
    expect(refused({ size: "1792x1024" }).message).toContain("'1024x1024'")
    expect(refused({ quality: "hd" })).toMatchObject({ param: "quality" })
    expect(refused({ aspectRatio: "16:9" })).toMatchObject({ param: "aspect_ratio" })
    expect(refused({ resolution: "1K" })).toMatchObject({ param: "resolution", code: "unsupported_parameter" })
    expect(refused({ style: "vivid" })).toMatchObject({ param: "style", code: "unsupported_parameter" })
    expect(refused({ background: "auto" })).toMatchObject({ param: "background", code: "unsupported_parameter" })
    expect(refused({ outputFormat: "webp" })).toMatchObject({ param: "output_format" })
    expect(refused({ outputCompression: 5 })).toMatchObject({ param: "output_compression" })
    expect(refused({ outputFormat: "png", outputCompression: 5 })).toMatchObject({ param: "output_compression" })
    expect(refused({ n: 3 })).toMatchObject({ param: "n" })
    expect(refused({ referenceCount: 3 })).toMatchObject({ param: "input_references" })
    expect(checkImageAsk(ask({ referenceCount: 1 }), model())?.reason).toMatchObject({ param: "input_references", code: "unsupported_parameter" })
  })

  it("an image model without an image block takes a prompt and one image", () => {
    const bare = Schema.decodeUnknownSync(ModelConfig)({ id: "bare", kind: "image", deployments: [{ provider: "p", model: "x" }] })
    expect(checkImageAsk(ask(), bare)).toBeUndefined()
    expect(checkImageAsk(ask({ n: 2 }), bare)?.reason).toMatchObject({ param: "n" })
  })
})

describe("image families", () => {
  it("are inferred from the provider and the upstream model name", () => {
    expect(inferImageFamily("openai", "dall-e-2")).toBe("dall-e-2")
    expect(inferImageFamily("openai", "dall-e-3")).toBe("dall-e-3")
    expect(inferImageFamily("openai", "gpt-image-1-mini")).toBe("gpt-image")
    expect(inferImageFamily("gemini", "imagen-4.0-fast-generate-001")).toBe("imagen")
    expect(inferImageFamily("gemini", "gemini-2.5-flash-image")).toBe("gemini")
    expect(inferImageFamily("openai-compatible", "flux")).toBe("openai-compatible")
    expect(inferImageFamily("anthropic", "claude")).toBeUndefined()
    expect(imageFamilyOf(model({ family: "dall-e-3" }))).toBe("dall-e-3")
    expect(imageFamilyOf(model())).toBe("gpt-image")
  })

  it("decide the response format a request leaves out: url, except base64 for GPT image models as on OpenAI", () => {
    expect(imageResponseFormat({}, model({ family: "dall-e-3" }))).toBe("url")
    expect(imageResponseFormat({}, model({ family: "gemini" }))).toBe("url")
    expect(imageResponseFormat({}, model({ family: "gpt-image" }))).toBe("b64_json")
    expect(imageResponseFormat({ responseFormat: "url" }, model({ family: "gpt-image" }))).toBe("url")
  })
})

describe("image usage and cost", () => {
  const pricing = (fields: Body) => Schema.decodeUnknownSync(Pricing)(fields)

  it("reports token usage with both detail objects, or all-zero usage with the image count for per-image prices", () => {
    expect(tokenUsageWire({ inputTokens: 50, outputTokens: 4160, inputImageTokens: 40 })).toEqual({
      input_tokens: 50,
      output_tokens: 4160,
      total_tokens: 4210,
      input_tokens_details: { text_tokens: 10, image_tokens: 40 },
      output_tokens_details: { text_tokens: 0, image_tokens: 4160 }
    })
    const result = { images: [{ data: { _tag: "Base64" as const, base64: "" } }, { data: { _tag: "Base64" as const, base64: "" } }], usage: { inputTokens: 5, outputTokens: 9 } }
    expect(imagesUsageWire(result, pricing({ per_image: 0.04 }))).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0, image_count: 2 })
    expect(imagesUsageWire(result, pricing({ output_per_mtok: 30 }))).toMatchObject({ input_tokens: 5, output_tokens: 9, total_tokens: 14 })
  })

  it("bounds the worst case: n times the image price, or the token bound", () => {
    const capabilities = model().capabilities
    const ask = { n: 3, promptBytes: 100, referenceCount: 0, inputCalls: 1 }
    expect(imageCostBoundNanoUsd(pricing({ per_image: 0.04 }), capabilities, ask)).toBe(120_000_000)
    expect(imageCostBoundNanoUsd(pricing({ per_image: 0.04, per_request: 0.001 }), capabilities, ask)).toBe(121_000_000)
    const tokens = model({}, { capabilities: { max_output_tokens: 1290 } }).capabilities
    // 3 x 1290 output tokens at $30/M, and the prompt's 100 bytes at $0.30/M, once per call.
    expect(imageCostBoundNanoUsd(pricing({ input_per_mtok: 0.3, output_per_mtok: 30 }), tokens, ask)).toBe(3 * 1290 * 30_000 + 100 * 300)
    expect(imageCostBoundNanoUsd(pricing({ input_per_mtok: 0.3 }), tokens, { ...ask, inputCalls: 3, referenceCount: 2 })).toBe(3 * (100 + 2 * referenceTokenAllowance) * 300)
    const bounded = model({}, { capabilities: { context_length: 1000 } }).capabilities
    expect(imageCostBoundNanoUsd(pricing({ input_per_mtok: 1 }), bounded, { ...ask, referenceCount: 5 })).toBe(1000 * 1000)
    expect(imageCostBoundNanoUsd(pricing({}), capabilities, ask)).toBe(0)
  })
})
