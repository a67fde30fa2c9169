import { Clock, Effect } from "effect"
import type { ModelConfig } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { OptionalSpans } from "../Observability/OptionalSpans.ts"
import type { AttemptLog, Served } from "./ProviderRouter.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

export interface RoutedCallParts {
  readonly record: (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled?: boolean) => Effect.Effect<void>
  readonly finalError: (model: ModelConfig, error: GatewayError | undefined, log: AttemptLog) => GatewayError
  readonly spans: OptionalSpans
}

/**
 * One non-streamed provider call of any kind over the planner's routes: every attempt is
 * timed and logged (cancelled when the request is interrupted), a failure asks the planner
 * for the next route and waits its backoff, and the answer names the route that served.
 */
export const routedCall = <A>(
  parts: RoutedCallParts,
  model: ModelConfig,
  planner: RoutePlanner,
  log: AttemptLog,
  call: (candidate: Candidate) => Effect.Effect<A, GatewayError>
): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> => {
  const attempt = (error: GatewayError | undefined): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> => {
    const step = planner.next(error)
    if (step === undefined) return Effect.fail(parts.finalError(model, error, log))
    const { candidate } = step
    const run = Effect.flatMap(Clock.currentTimeMillis, (startedAt) => {
      let result = call(candidate).pipe(Effect.onInterrupt(() => parts.record(candidate, log, startedAt, undefined, true)))
      if (parts.spans.enabled) {
        result = result.pipe(
          parts.spans.span("ProviderRouter.attempt", {
            attributes: { "gateway.provider": candidate.deployment.provider, "gateway.model": candidate.model.id, "gateway.attempt": planner.used }
          })
        )
      }
      return Effect.matchEffect(result, {
        onFailure: (failure) => Effect.flatMap(parts.record(candidate, log, startedAt, failure), () => attempt(failure)),
        onSuccess: (value) =>
          Effect.as(parts.record(candidate, log, startedAt, undefined), {
            result: value,
            served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
          })
      })
    })
    return step.delayMs > 0 ? Effect.andThen(Effect.sleep(step.delayMs), run) : run
  }
  return attempt(undefined)
}
