import * as Effect from "effect/Effect"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { OptionalSpans } from "../../Streams/OptionalSpans.ts"
import { type Deadline, within } from "../../Streams/Deadline.ts"
import { attemptAttributes, type GenAiOperation } from "./GenAiSpans.ts"
import type { AttemptLog, Served } from "./RoutedAttempts.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

export interface RoutedCallParts {
  readonly record: (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled?: boolean) => Effect.Effect<void>
  readonly finalError: (model: ModelConfig, error: GatewayError | undefined, log: AttemptLog) => GatewayError
  readonly spans: OptionalSpans
  /** For the attempt spans: the GenAI operation and each provider's GenAI name. */
  readonly operation: GenAiOperation
  readonly providerName: (id: string) => string
}

/**
 * One non-streamed provider call of any kind over the planner's routes: every attempt is
 * timed and logged (cancelled when the request is interrupted), a failure asks the planner
 * for the next route and waits its backoff, and the answer names the route that served.
 *
 * The request's `deadline` (a value, made once by the router) bounds every attempt: retries
 * stop and backoff is cut short at it, and an attempt cut off by it counts as cancelled, since
 * the provider is not to blame.
 */
export const routedCall = <A>(
  parts: RoutedCallParts,
  model: ModelConfig,
  planner: RoutePlanner,
  log: AttemptLog,
  deadline: Deadline,
  call: (candidate: Candidate) => Effect.Effect<A, GatewayError>
): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> =>
  Effect.clockWith((clock) => {
    log.cooledDown = planner.cooledDown
    const attempt = (error: GatewayError | undefined): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> => {
      if (error !== undefined && deadline.left() <= 0) return Effect.fail(deadline.error())
      const step = planner.next(error)
      if (step === undefined) return Effect.fail(parts.finalError(model, error, log))
      const { candidate } = step
      const run = Effect.suspend(() => {
        const startedAt = clock.currentTimeMillisUnsafe()
        if (deadline.left() <= 0) return Effect.fail(deadline.error())
        log.started++
        let result = within(call(candidate).pipe(Effect.onInterrupt(() => parts.record(candidate, log, startedAt, undefined, true))), deadline)
        if (parts.spans.enabled) {
          result = result.pipe(
            parts.spans.span("ProviderRouter.attempt", {
              attributes: attemptAttributes(parts.operation, candidate, parts.providerName, planner.used)
            })
          )
        }
        return Effect.matchEffect(result, {
          // An attempt the deadline cut was recorded as cancelled when it was interrupted.
          onFailure: (failure) =>
            deadline.left() > 0
              ? Effect.flatMap(parts.record(candidate, log, startedAt, failure), () => attempt(failure))
              : failure === deadline.error()
              ? Effect.fail(failure)
              : Effect.flatMap(parts.record(candidate, log, startedAt, undefined, true), () => Effect.fail(deadline.error())),
          onSuccess: (value) =>
            Effect.as(parts.record(candidate, log, startedAt, undefined), {
              result: value,
              served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
            })
        })
      })
      return step.delayMs > 0 ? Effect.andThen(Effect.sleep(Math.max(0, Math.min(step.delayMs, deadline.left()))), run) : run
    }
    return attempt(undefined)
  })
