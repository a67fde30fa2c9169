import type { RequestMeter } from "../Services/Usage/UsageMeter.ts"

/**
 * `x-request-id`, and `x-gateway-provider` (the provider that served) and `x-gateway-attempts`
 * (calls made, retries and fallbacks included; on a stream, the serving one counts while it is
 * still running). The request id is set here too so the response is not copied again to add it.
 */
export const routeHeaders = (meter: RequestMeter): Record<string, string> =>
  meter.served === undefined
    ? { "x-request-id": meter.requestId }
    : { "x-request-id": meter.requestId, "x-gateway-provider": meter.served.provider, "x-gateway-attempts": String(Math.max(meter.log.started, meter.log.attempts.length)) }
