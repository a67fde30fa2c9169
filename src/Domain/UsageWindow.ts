import * as Effect from "effect/Effect"
import { GatewayError } from "./GatewayError.ts"

/** What a usage report covers when the caller names no window. */
export const defaultUsageWindowSeconds = 30 * 24 * 60 * 60

/**
 * Resolves a report window in unix seconds, `from` inclusive and `to` exclusive. A missing
 * `to` is the end of the current second, so requests made a moment ago are included; a
 * missing `from` is `defaultUsageWindowSeconds` before `to`.
 */
export const usageWindow = (
  nowMillis: number,
  from: number | undefined,
  to: number | undefined
): Effect.Effect<{ readonly from: number; readonly to: number }, GatewayError> => {
  const end = to ?? Math.floor(nowMillis / 1000) + 1
  const start = from ?? Math.max(0, end - defaultUsageWindowSeconds)
  return start >= end
    ? Effect.fail(GatewayError.invalid(`'from' (${start}) must be earlier than 'to' (${end}).`, "from"))
    : Effect.succeed({ from: start, to: end })
}
