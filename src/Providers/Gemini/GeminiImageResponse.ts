import type { GeneratedImage, ImageUsage } from "../../Domain/ImageResult.ts"
import { arr, filteredFinishReasons, isRecord, num, rec, str } from "./GeminiWire.ts"

/** What one Gemini or Imagen answer gave: images, a content-policy refusal, or no image at all. */
export type GeminiImageAnswer =
  | { readonly _tag: "Images"; readonly images: ReadonlyArray<GeneratedImage>; readonly usage?: ImageUsage }
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "NoImage"; readonly what: string }

const tokensByModality = (details: unknown, modality: string): number | undefined => {
  const found = arr(details).filter(isRecord).filter((d) => d["modality"] === modality)
  return found.length === 0 ? undefined : found.reduce((sum, d) => sum + (num(d["tokenCount"]) ?? 0), 0)
}

/**
 * `usageMetadata` of an image call. Thinking is generated output and billed as such, so it joins
 * the output (as text); the modality details split text from image tokens.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export const imageUsageFromGemini = (value: unknown): ImageUsage | undefined => {
  if (!isRecord(value)) return undefined
  const prompt = num(value["promptTokenCount"])
  const candidates = num(value["candidatesTokenCount"])
  const thoughts = num(value["thoughtsTokenCount"]) ?? 0
  if (prompt === undefined && candidates === undefined) return undefined
  const usage: Record<string, number> = { inputTokens: prompt ?? 0, outputTokens: (candidates ?? 0) + thoughts }
  const put = (key: string, v: number | undefined) => {
    if (v !== undefined) usage[key] = v
  }
  put("inputTextTokens", tokensByModality(value["promptTokensDetails"], "TEXT"))
  put("inputImageTokens", tokensByModality(value["promptTokensDetails"], "IMAGE"))
  const outputText = tokensByModality(value["candidatesTokensDetails"], "TEXT")
  put("outputTextTokens", outputText === undefined && thoughts === 0 ? undefined : (outputText ?? 0) + thoughts)
  put("outputImageTokens", tokensByModality(value["candidatesTokensDetails"], "IMAGE"))
  return usage as unknown as ImageUsage
}

/**
 * A `GenerateContentResponse` of an image model -> its first image. A blocked prompt
 * (`promptFeedback.blockReason`) or a candidate stopped by a filter is a refusal; thought images
 * (drafts of thinking models) are not the answer.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export const imageFromGemini = (body: unknown): GeminiImageAnswer => {
  const blocked = str(rec(rec(body)["promptFeedback"])["blockReason"])
  if (blocked !== undefined) return { _tag: "Refused", reason: blocked }
  const candidate = rec(arr(rec(body)["candidates"])[0])
  const finish = str(candidate["finishReason"])
  if (finish !== undefined && filteredFinishReasons.has(finish)) return { _tag: "Refused", reason: finish }
  const usage = imageUsageFromGemini(rec(body)["usageMetadata"])
  for (const part of arr(rec(candidate["content"])["parts"]).filter(isRecord)) {
    if (part["thought"] === true) continue
    const inline = rec(part["inlineData"])
    const data = str(inline["data"])
    if (data !== undefined && (str(inline["mimeType"]) ?? "").startsWith("image/")) {
      return { _tag: "Images", images: [{ data: { _tag: "Base64", base64: data } }], ...(usage === undefined ? {} : { usage }) }
    }
  }
  return { _tag: "NoImage", what: `the answer had no image (finish reason ${finish ?? "none"})` }
}

/**
 * A `:predict` answer of Imagen -> its images. Imagen leaves out images its filters removed
 * (or marks them with `raiFilteredReason`); when none is left the request was refused.
 * @see https://ai.google.dev/gemini-api/docs/imagen
 */
export const imagesFromImagen = (body: unknown): GeminiImageAnswer => {
  const images: Array<GeneratedImage> = []
  let filtered: string | undefined
  for (const prediction of arr(rec(body)["predictions"]).filter(isRecord)) {
    const data = str(prediction["bytesBase64Encoded"])
    if (data !== undefined && data !== "") images.push({ data: { _tag: "Base64", base64: data } })
    else filtered ??= str(prediction["raiFilteredReason"])
  }
  if (images.length > 0) return { _tag: "Images", images }
  // `raiFilteredReason` is prose: only its presence is read, never its words.
  return { _tag: "Refused", reason: filtered === undefined ? "no image came back" : "its safety filters removed every image" }
}
