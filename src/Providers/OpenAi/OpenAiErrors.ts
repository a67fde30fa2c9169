import type { GatewayError } from "../../Domain/GatewayError.ts"
import { errorFromStatus } from "../ProviderErrors.ts"
import type { UpstreamResponse } from "../ProviderHttp.ts"
import { isRecord, str } from "./OpenAiWire.ts"

/**
 * A non-2xx OpenAI-style answer -> the gateway's error. The status decides the reason; the body
 * only contributes the provider's message and the offending parameter.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export const openAiError = (provider: string, response: UpstreamResponse, text: string): GatewayError => {
  let message: string | undefined
  let param: string | undefined
  try {
    const body: unknown = JSON.parse(text)
    const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : isRecord(body) ? body : {}
    message = str(error["message"]) ?? str((error as Record<string, unknown>)["detail"])
    param = str(error["param"])
  } catch {
    message = text.trim() === "" ? undefined : text.trim().slice(0, 500)
  }
  return errorFromStatus({ provider, status: response.status, message, param, header: response.header })
}
