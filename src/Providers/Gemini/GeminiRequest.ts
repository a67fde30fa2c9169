import { advisoryFields, type ChatRequest } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import { nativeDocumentTypes, withDocumentsDelivered } from "../DocumentDelivery.ts"
import { geminiConversation } from "./GeminiContents.ts"
import { geminiGenerationConfig } from "./GeminiGenerationConfig.ts"
import { geminiTools } from "./GeminiTools.ts"
import type { GeminiRequestBody } from "./GeminiWire.ts"

/**
 * Refuses, by name, what Gemini cannot honour: token biasing, and top-level fields this gateway
 * does not model (OpenAI-style upstreams receive those unchanged; here they would be lost).
 * Advisory fields (`user`, `metadata`, `store`, ...) change nothing and are not sent.
 */
const refuseUnsupported = (request: ChatRequest): void => {
  if (request.logit_bias !== undefined) {
    throw GatewayError.invalid("'logit_bias' is not supported by this model.", "logit_bias", "unsupported_parameter")
  }
  for (const key of Object.keys(request.extra)) {
    if (!advisoryFields.has(key)) throw GatewayError.invalid(`'${key}' is not supported by this model.`, key, "unsupported_parameter")
  }
}

/**
 * The body of `models/{model}:generateContent` and `:streamGenerateContent` (identical for both).
 * Throws a GatewayError for every client mistake, naming the field.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export const geminiRequestBody = (input: ChatRequest, target: ChatTarget): GeminiRequestBody => {
  const request = withDocumentsDelivered(input, nativeDocumentTypes.gemini, target.model.capabilities.vision)
  refuseUnsupported(request)
  const conversation = geminiConversation(request.messages)
  const generationConfig = geminiGenerationConfig(request, target)
  return {
    ...conversation,
    ...geminiTools(request),
    ...(Object.keys(generationConfig).length === 0 ? {} : { generationConfig })
  }
}
