import type { ChatRequest } from "./ChatRequest.ts"
import type { ModelConfig } from "./GatewayConfig.ts"
import { GatewayError } from "./GatewayError.ts"

/** Spec part 8: at most 5 videos per request, 100 MB each after decoding. */
export const maxVideosPerRequest = 5
export const maxVideoBytes = 100 * 1024 * 1024

/** Bytes a base64 string (optionally a data URL) decodes to, without decoding it. */
export const decodedSize = (data: string): number => {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1
  const start = comma + 1
  let end = data.length
  while (end > start && (data.charCodeAt(end - 1) === 61 /* = */ || data.charCodeAt(end - 1) <= 32)) end--
  return Math.floor(((end - start) * 3) / 4)
}

/** How to state a capability in the configuration, for the message of a request that needs it. */
export const stateIt = (model: string, capability: string): string =>
  ` If it does, state it in the gateway configuration: capabilities.${capability}: true on the model '${model}'.`

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

/**
 * Rejects, before any upstream call, every request part the model cannot take (spec 4.1 rules
 * 2-3 and 2.2): nothing is silently dropped. Also enforces the inline size limits of part 8 on
 * decoded sizes. Returns the first violation, naming its field.
 */
export const checkCapabilities = (
  request: ChatRequest,
  model: ModelConfig,
  limits: { readonly maxInlineFileBytes: number }
): GatewayError | undefined => {
  const c = model.capabilities
  const name = model.id
  let videos = 0
  let inlineFileBytes = 0
  for (const [i, message] of request.messages.entries()) {
    if (message.role !== "user" || typeof message.content === "string") continue
    for (const [j, part] of message.content.entries()) {
      const path = `messages[${i}].content[${j}]`
      switch (part.type) {
        case "image_url":
          if (!c.vision) return GatewayError.invalid(`The model '${name}' does not accept image input.${stateIt(name, "vision")}`, path, "unsupported_content")
          break
        case "input_audio":
          if (!c.audio_input) return GatewayError.unsupportedMedia(`The model '${name}' does not accept audio input.${stateIt(name, "audio_input")}`, path)
          break
        case "file":
          if (!c.file_input) return GatewayError.unsupportedMedia(`The model '${name}' does not accept file input.${stateIt(name, "file_input")}`, path)
          if (part.file.file_id !== undefined && (part.file.file_data !== undefined || part.file.file_url !== undefined)) {
            return GatewayError.invalid(`'file_id' cannot be combined with 'file_data' or 'file_url' ('${path}.file').`, `${path}.file.file_id`)
          }
          if (part.file.file_data !== undefined) {
            inlineFileBytes += decodedSize(part.file.file_data)
            if (inlineFileBytes > limits.maxInlineFileBytes) {
              return GatewayError.tooLarge(
                `Inline file data in this request exceeds the ${mb(limits.maxInlineFileBytes)} limit (at '${path}').`,
                `${path}.file.file_data`
              )
            }
          }
          break
        case "input_video": {
          if (!c.video_input) return GatewayError.unsupportedMedia(`The model '${name}' does not accept video input.${stateIt(name, "video_input")}`, path)
          const video = part.input_video
          if ((video.url === undefined) === (video.data === undefined)) {
            return GatewayError.invalid(`'${path}.input_video' needs exactly one of 'url' or 'data'.`, `${path}.input_video`)
          }
          videos++
          if (videos > maxVideosPerRequest) {
            return GatewayError.invalid(`At most ${maxVideosPerRequest} videos are allowed per request.`, path)
          }
          if (video.data !== undefined && decodedSize(video.data) > maxVideoBytes) {
            return GatewayError.tooLarge(`The video at '${path}' is larger than ${mb(maxVideoBytes)}.`, `${path}.input_video.data`)
          }
          break
        }
        case "text":
          break
      }
    }
  }
  if (request.tools !== undefined && !c.tools) {
    return GatewayError.invalid(`The model '${name}' does not support tools.${stateIt(name, "tools")}`, "tools", "unsupported_parameter")
  }
  if (request.response_format?.type === "json_schema" && !c.structured_output) {
    return GatewayError.invalid(`The model '${name}' does not support structured output ('json_schema').${stateIt(name, "structured_output")}`, "response_format", "unsupported_parameter")
  }
  if (request.logprobs === true && !c.logprobs) {
    return GatewayError.invalid(`The model '${name}' does not return log probabilities.${stateIt(name, "logprobs")}`, "logprobs", "unsupported_parameter")
  }
  if (request.modalities?.includes("audio") === true) {
    return GatewayError.invalid(`The model '${name}' does not produce audio output.`, "modalities", "unsupported_parameter")
  }
  return undefined
}
