import type { GatewayError } from "../../Domain/GatewayError.ts"
import { errorFromStatus } from "../ProviderErrors.ts"
import type { UpstreamResponse } from "../ProviderHttp.ts"
import { isRecord, str } from "./AnthropicWire.ts"

/**
 * A non-2xx Messages API answer -> the gateway's error. The status decides the reason (529 is
 * `overloaded_error`, 429 `rate_limit_error` with `retry-after`, 400/413 the client's request);
 * the body `{"type":"error","error":{"type","message"}}` only contributes the message.
 * @see https://platform.claude.com/docs/en/api/errors
 * @see https://platform.claude.com/docs/en/api/rate-limits#response-headers
 */
export const anthropicError = (provider: string, response: UpstreamResponse, text: string): GatewayError => {
  let message: string | undefined
  try {
    const body: unknown = JSON.parse(text)
    const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : {}
    message = str(error["message"])
  } catch {
    // Proxies in front of the API (for example on 413) may answer in HTML or plain text.
    message = text.trim() === "" ? undefined : text.trim().slice(0, 500)
  }
  return errorFromStatus({ provider, status: response.status, message, header: response.header })
}
