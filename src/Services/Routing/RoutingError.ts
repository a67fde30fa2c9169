import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, RateLimited, UpstreamFailure } from "../../Domain/GatewayError.ts"
import type { AttemptLog } from "./RoutedAttempts.ts"

/**
 * The error a client sees when no route could serve the request. A client mistake is passed
 * through as it is. When every attempt was throttled the answer is 429 with the shortest
 * Retry-After; otherwise it is an upstream error that says what was tried.
 */
export const finalRoutingError = (model: ModelConfig, last: GatewayError | undefined, log: AttemptLog): GatewayError => {
  if (last === undefined) {
    return new GatewayError({
      reason: new UpstreamFailure({ message: `The model '${model.id}' has no usable deployment.`, provider: "gateway", kind: "rejected" })
    })
  }
  if (last.reason._tag !== "UpstreamFailure") return last
  const tried = log.attempts
    .map((a) => `${a.model} via ${a.provider}${a.status === undefined ? "" : ` (HTTP ${a.status})`}: ${a.outcome}`)
    .join("; ")
  const failures = log.attempts.filter((a) => a.outcome === "error")
  const allThrottled = failures.length > 0 && failures.every((a) => a.status === 429)
  if (allThrottled || (log.attempts.length <= 1 && last.reason.kind === "rate_limited")) {
    return new GatewayError({
      reason: new RateLimited({
        message: `Every provider for model '${model.id}' is rate limiting requests. Tried: ${tried}.`,
        // The upstream said nothing of when: a second, as before, since waiting may help.
        retryAfterMs: last.retryAfterMs ?? 1000
      })
    })
  }
  const count = log.attempts.length
  return new GatewayError({
    reason: new UpstreamFailure({
      message: `${count === 1 ? "The provider call" : `All ${count} provider calls`} for model '${model.id}' failed. Tried: ${tried}. Last error: ${last.reason.message}`,
      provider: last.reason.provider,
      kind: last.reason.kind,
      ...(last.reason.status === undefined ? {} : { status: last.reason.status }),
      ...(last.retryAfterMs === undefined ? {} : { retryAfterMs: last.retryAfterMs })
    })
  })
}
