import type { GatewayError } from "../../Domain/GatewayError.ts"
import { errorFromStatus, upstreamFailure } from "../ProviderErrors.ts"
import type { UpstreamResponse } from "../ProviderHttp.ts"
import { arr, isRecord, type JsonRecord, rec, str } from "./GeminiWire.ts"

/** A protobuf Duration in JSON (`"7s"`, `"0.250s"`) in milliseconds. */
export const durationMs = (value: unknown): number | undefined => {
  const match = typeof value === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(value.trim()) : null
  return match === null ? undefined : Math.round(Number(match[1]) * 1000)
}

const detail = (error: JsonRecord, type: string): JsonRecord | undefined =>
  arr(error["details"]).filter(isRecord).find((d) => d["@type"] === `type.googleapis.com/google.rpc.${type}`)

/** The `error` object of a body; the non-SSE stream endpoint wraps it in an array. */
const errorObject = (text: string): JsonRecord | undefined => {
  try {
    const body: unknown = JSON.parse(text)
    const first = Array.isArray(body) ? body[0] : body
    return isRecord(first) && isRecord(first["error"]) ? first["error"] : undefined
  } catch {
    return undefined
  }
}

const gatewaySide = (provider: string, status: number, kind: "auth" | "rejected", message: string): GatewayError =>
  upstreamFailure(provider, kind, message, status)

/**
 * A non-2xx Gemini answer -> the gateway's error. The HTTP status decides, as for every
 * provider, with two structured exceptions at 400 that are not the client's doing: an invalid
 * API key (ErrorInfo reason `API_KEY_INVALID`) and `FAILED_PRECONDITION` (the project or
 * region cannot use the API). Throttling waits come from `retry-after` when present, else from
 * the RetryInfo detail Gemini sends with 429.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://cloud.google.com/apis/design/errors#error_details
 */
export const geminiError = (provider: string, response: UpstreamResponse, text: string): GatewayError => {
  const error = errorObject(text)
  const message = error === undefined ? (text.trim() === "" ? undefined : text.trim().slice(0, 500)) : str(error["message"])
  if (error !== undefined && response.status === 400) {
    if (str(rec(detail(error, "ErrorInfo"))["reason"]) === "API_KEY_INVALID") {
      return gatewaySide(provider, 400, "auth", `The provider '${provider}' rejected the gateway's credentials (HTTP 400).`)
    }
    if (error["status"] === "FAILED_PRECONDITION") {
      return gatewaySide(provider, 400, "rejected", `The provider '${provider}' cannot serve this request (HTTP 400): ${message ?? "failed precondition"}`)
    }
  }
  const retryDelay = error === undefined ? undefined : durationMs(rec(detail(error, "RetryInfo"))["retryDelay"])
  const header = (name: string): string | undefined => {
    const value = response.header(name)
    if (value !== undefined || name !== "retry-after-ms" || response.header("retry-after") !== undefined) return value
    return retryDelay === undefined ? undefined : String(retryDelay)
  }
  return errorFromStatus({ provider, status: response.status, message, header })
}
