import type { RequestMeter } from "../Services/Usage/UsageMeter.ts"

/**
 * `x-request-id`, and `x-gateway-provider` (the provider that served) and `x-gateway-attempts`
 * (calls made, retries and fallbacks included; on a stream, the serving one counts while it is
 * still running), and `x-gateway-translation` (the translation report, when something was dropped or
 * rewritten). The request id is set here too so the response is not copied again to add it.
 */
export const routeHeaders = (meter: RequestMeter): Record<string, string> => {
  if (meter.served === undefined) return { "x-request-id": meter.requestId }
  const headers: Record<string, string> = {
    "x-request-id": meter.requestId,
    "x-gateway-provider": meter.served.provider,
    "x-gateway-attempts": String(Math.max(meter.log.started, meter.log.attempts.length))
  }
  const translation = meter.translationHeader
  if (translation !== undefined) headers["x-gateway-translation"] = translation
  return headers
}
