import type { RequestMeter } from "../Services/UsageMeter.ts"

/** `x-gateway-provider` (the provider that served) and `x-gateway-attempts` (calls made, retries and fallbacks included). */
export const routeHeaders = (meter: RequestMeter): Record<string, string> =>
  meter.served === undefined
    ? {}
    : { "x-gateway-provider": meter.served.provider, "x-gateway-attempts": String(meter.log.attempts.length) }
