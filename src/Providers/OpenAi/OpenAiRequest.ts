import type { UserContentPart } from "../../Domain/ChatContentPart.ts"
import type { ChatMessage } from "../../Domain/ChatMessage.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import { nativeDocumentTypes, withDocumentsDelivered } from "../DocumentDelivery.ts"
import type { ProviderProfile } from "../OpenAiCompatible/Profiles.ts"

/** OpenAI takes file data as a data URL; clients may send bare base64. */
const asDataUrl = (data: string, mimeType: string): string => (data.startsWith("data:") ? data : `data:${mimeType};base64,${data}`)

const mimeFromFilename = (filename: string | undefined): string => {
  const ext = filename?.split(".").pop()?.toLowerCase()
  return ext === "pdf" ? "application/pdf" : ext === "txt" ? "text/plain" : "application/octet-stream"
}

const userPart = (part: UserContentPart, path: string): Record<string, unknown> => {
  switch (part.type) {
    case "text":
    case "image_url":
    case "input_audio":
      return part
    case "file": {
      const file = part.file
      if (file.file_data === undefined) {
        // Files by id or URL are resolved to inline data before an adapter sees them.
        throw GatewayError.invalid(`The file in '${path}' must be resolved before it reaches the provider.`, path)
      }
      return {
        type: "file",
        file: {
          ...(file.filename === undefined ? {} : { filename: file.filename }),
          file_data: asDataUrl(file.file_data, file.mime_type ?? mimeFromFilename(file.filename))
        }
      }
    }
    case "input_video":
      throw GatewayError.unsupportedMedia(`This model does not accept video input ('${path}').`, path)
  }
}

const message = (m: ChatMessage, index: number): object => {
  switch (m.role) {
    case "system":
    case "tool":
      return m
    case "user":
      return typeof m.content === "string"
        ? m
        : { ...m, content: m.content.map((p, j) => userPart(p, `messages[${index}].content[${j}]`)) }
    case "assistant": {
      // Reasoning from earlier turns is not input for OpenAI-style servers (some reject it).
      const { reasoning_content: _reasoning, ...rest } = m
      return rest
    }
  }
}

/**
 * Builds the upstream body. Only fields the client set are sent; the output cap goes under the
 * name the server reads; usage is always requested for streams because billing needs it.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const openAiRequestBody = (
  request: ChatRequest,
  target: ChatTarget,
  profile: ProviderProfile,
  stream: boolean
): Record<string, unknown> => {
  // Only OpenAI itself takes PDFs as file parts; compatible servers get the extracted text.
  request = withDocumentsDelivered(
    request,
    profile.name === "openai" ? nativeDocumentTypes.openai : nativeDocumentTypes.none,
    target.model.capabilities.vision
  )
  for (const field of profile.unsupported) {
    const value = (request as unknown as Record<string, unknown>)[field]
    if (value !== undefined && !(field === "n" && value === 1)) {
      throw GatewayError.invalid(`The model '${target.model.id}' does not support '${field}'.`, field)
    }
  }
  const body: Record<string, unknown> = {
    ...request.extra,
    model: target.upstreamModel,
    messages: request.messages.map(message)
  }
  const copy = [
    "temperature",
    "top_p",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "seed",
    "response_format",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "modalities",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "user"
  ] as const
  for (const key of copy) if (request[key] !== undefined) body[key] = request[key]
  if (request.n !== 1) body["n"] = request.n
  if (request.top_k !== undefined && profile.topK) body["top_k"] = request.top_k
  if (request.max_completion_tokens !== undefined) body[profile.maxTokensField] = request.max_completion_tokens
  // Spec 4.1: ignored by models that do not reason.
  if (request.reasoning_effort !== undefined && target.model.capabilities.reasoning) {
    body["reasoning_effort"] = request.reasoning_effort
  }
  if (stream) {
    body["stream"] = true
    if (profile.streamOptions) body["stream_options"] = { include_usage: true }
  }
  return body
}
