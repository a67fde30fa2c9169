import { GatewayError } from "../../Domain/GatewayError.ts"
import type { GeneratedImage, ImageResult, ImageUsage } from "../../Domain/ImageResult.ts"
import type { UpstreamResponse } from "../ProviderHttp.ts"
import { openAiError } from "./OpenAiErrors.ts"
import { arr, isRecord, num, rec, str } from "./OpenAiWire.ts"

/**
 * `usage` of the GPT image models -> image usage.
 * @see https://platform.openai.com/docs/api-reference/images/object
 */
export const imageUsageFromOpenAi = (value: unknown): ImageUsage | undefined => {
  if (!isRecord(value)) return undefined
  const input = num(value["input_tokens"])
  const output = num(value["output_tokens"])
  if (input === undefined && output === undefined) return undefined
  const inDetails = rec(value["input_tokens_details"])
  const outDetails = rec(value["output_tokens_details"])
  const usage: Record<string, number> = { inputTokens: input ?? 0, outputTokens: output ?? 0 }
  const put = (key: string, v: number | undefined) => {
    if (v !== undefined) usage[key] = v
  }
  put("inputTextTokens", num(inDetails["text_tokens"]))
  put("inputImageTokens", num(inDetails["image_tokens"]))
  put("outputTextTokens", num(outDetails["text_tokens"]))
  put("outputImageTokens", num(outDetails["image_tokens"]))
  return usage as unknown as ImageUsage
}

/**
 * An `ImagesResponse` -> the images (base64, or a link the upstream hosts), or what is wrong
 * with it. The settings GPT image models report (`size`, `quality`, ...) are kept.
 */
export const imagesFromOpenAi = (body: unknown): ImageResult | string => {
  if (!isRecord(body)) return "the body was not an object"
  const images: Array<GeneratedImage> = []
  for (const [i, raw] of arr(body["data"]).entries()) {
    const item = rec(raw)
    const b64 = str(item["b64_json"])
    const url = str(item["url"])
    const revised = str(item["revised_prompt"])
    if (b64 === undefined && url === undefined) return `image ${i} has neither b64_json nor url`
    images.push({
      data: b64 !== undefined ? { _tag: "Base64", base64: b64 } : { _tag: "Url", url: url! },
      ...(revised === undefined || revised === "" ? {} : { revisedPrompt: revised })
    })
  }
  if (images.length === 0) return "the answer had no images"
  const usage = imageUsageFromOpenAi(body["usage"])
  const reported = (key: string) => (str(body[key]) === undefined ? {} : { [key === "output_format" ? "outputFormat" : key]: str(body[key]) })
  return {
    images,
    ...(usage === undefined ? {} : { usage }),
    ...reported("size"),
    ...reported("quality"),
    ...reported("background"),
    ...reported("output_format")
  } as ImageResult
}

/**
 * The error codes OpenAI (and Azure OpenAI) give a prompt or image their safety system refused:
 * `content_policy_violation` (DALL-E), `moderation_blocked` (GPT image models), `content_filter`.
 */
const policyCodes: ReadonlySet<string> = new Set(["content_policy_violation", "moderation_blocked", "content_filter"])

/**
 * A non-2xx answer of the Images API. A content-policy refusal, known by its error code, is a 400
 * `content_policy_violation` naming `prompt` (spec 7: a client-side outcome, never retried
 * elsewhere); anything else is decoded like every OpenAI error.
 */
export const openAiImageError = (provider: string, response: UpstreamResponse, text: string): GatewayError => {
  let code: string | undefined
  let message: string | undefined
  try {
    const error = rec(rec(JSON.parse(text) as unknown)["error"])
    code = str(error["code"])
    message = str(error["message"])
  } catch {
    code = undefined
  }
  if (response.status === 400 && code !== undefined && policyCodes.has(code)) {
    return GatewayError.invalid(
      `The request was refused by the provider's content policy${message === undefined ? "." : `: ${message}`}`,
      "prompt",
      "content_policy_violation"
    )
  }
  return openAiError(provider, response, text)
}
