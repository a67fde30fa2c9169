import * as Effect from "effect/Effect"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { OptionalSpans } from "../../Streams/OptionalSpans.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import { type AttemptRecording, attemptPolicy } from "./AttemptPolicy.ts"
import { attemptAttributes, type GenAiOperation } from "./GenAiSpans.ts"
import type { AttemptLog, Served } from "./RoutedAttempts.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

export interface RoutedCallParts extends AttemptRecording {
  readonly spans: OptionalSpans
  /** For the attempt spans: the GenAI operation and each provider's GenAI name. */
  readonly operation: GenAiOperation
  readonly providerName: (id: string) => string
}

/**
 * One non-streamed provider call of any kind over the planner's routes. Retries, fallback,
 * backoff, the deadline and the log are the request's `AttemptPolicy` (the same as a stream's;
 * a call commits only by succeeding); what is this loop's own is running an attempt: timed,
 * cancelled when the request is interrupted, and the answer naming the route that served.
 *
 * `call` ends by the request's `deadline` (a value, made once by the router) by itself, failing
 * with its error: a chat call on its upstream exchange's timer, the others under `within`. The
 * loop adds no watcher fiber of its own, which would cost every request two fibers and a timer.
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
    const policy = attemptPolicy(parts, { model, planner, log, deadline })
    const attempt = (error: GatewayError | undefined): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> =>
      Effect.flatMap(policy.next(error), (candidate) => {
        const startedAt = clock.currentTimeMillisUnsafe()
        let result = call(candidate).pipe(Effect.onInterrupt(() => policy.ended(candidate, startedAt, true)))
        if (parts.spans.enabled) {
          result = result.pipe(
            parts.spans.span("ProviderRouter.attempt", {
              attributes: attemptAttributes(parts.operation, candidate, parts.providerName, planner.used)
            })
          )
        }
        return Effect.matchEffect(result, {
          // The next route is chosen only once this attempt is in the log (suspended), so a final error lists it.
          onFailure: (failure) => Effect.andThen(policy.failed(candidate, startedAt, failure), Effect.suspend(() => attempt(failure))),
          onSuccess: (value) =>
            Effect.as(policy.ended(candidate, startedAt), {
              result: value,
              served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
            })
        })
      })
    return attempt(undefined)
  })
