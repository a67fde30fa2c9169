import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { OptionalSpans } from "../../Streams/OptionalSpans.ts"
import { RequestDeadline } from "../../Providers/RequestDeadline.ts"
import { liveClock, withDeadline } from "../../Streams/Deadline.ts"
import { attemptAttributes, type GenAiOperation } from "./GenAiSpans.ts"
import type { AttemptLog, Served } from "./RoutedAttempts.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

export interface RoutedCallParts {
  readonly record: (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled?: boolean) => Effect.Effect<void>
  readonly finalError: (model: ModelConfig, error: GatewayError | undefined, log: AttemptLog) => GatewayError
  readonly spans: OptionalSpans
  readonly deadlineMs: number
  readonly deadlineError: (model: ModelConfig) => GatewayError
  /** The candidate's calls end by themselves at the request's `RequestDeadline`. */
  readonly honoursDeadline: (candidate: Candidate) => boolean
  /** For the attempt spans: the GenAI operation and each provider's GenAI name. */
  readonly operation: GenAiOperation
  readonly providerName: (id: string) => string
}

/**
 * One non-streamed provider call of any kind over the planner's routes: every attempt is
 * timed and logged (cancelled when the request is interrupted), a failure asks the planner
 * for the next route and waits its backoff, and the answer names the route that served.
 *
 * The routing deadline is an instant, set once, not a watcher fiber per request: calls that
 * honour `RequestDeadline` run bare; any other call (and every one under a test clock, which
 * Node timers do not follow) gets a watcher for the time that is left. Retries stop and
 * backoff is cut short at the deadline, and an attempt cut off by it counts as cancelled,
 * since the provider is not to blame.
 */
export const routedCall = <A>(
  parts: RoutedCallParts,
  model: ModelConfig,
  planner: RoutePlanner,
  log: AttemptLog,
  call: (candidate: Candidate) => Effect.Effect<A, GatewayError>
): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> =>
  Effect.withFiber((fiber) => {
    log.cooledDown = planner.cooledDown
    const clock = fiber.getRef(Clock.Clock)
    const live = clock === liveClock
    const deadlineAt = clock.currentTimeMillisUnsafe() + parts.deadlineMs
    const left = () => deadlineAt - clock.currentTimeMillisUnsafe()
    // Made on first need: an error captures a stack, which most requests never pay for.
    let cutOff: GatewayError | undefined
    const cut = () => (cutOff ??= parts.deadlineError(model))

    const attempt = (error: GatewayError | undefined): Effect.Effect<{ readonly result: A; readonly served: Served }, GatewayError> => {
      if (error !== undefined && left() <= 0) return Effect.fail(cut())
      const step = planner.next(error)
      if (step === undefined) return Effect.fail(parts.finalError(model, error, log))
      const { candidate } = step
      const run = Effect.suspend(() => {
        const startedAt = clock.currentTimeMillisUnsafe()
        if (startedAt >= deadlineAt) return Effect.fail(cut())
        log.started++
        let result = call(candidate).pipe(Effect.onInterrupt(() => parts.record(candidate, log, startedAt, undefined, true)))
        if (!live || !parts.honoursDeadline(candidate)) {
          result = withDeadline(result, deadlineAt - startedAt, () => Effect.fail(cut()))
        }
        if (parts.spans.enabled) {
          result = result.pipe(
            parts.spans.span("ProviderRouter.attempt", {
              attributes: attemptAttributes(parts.operation, candidate, parts.providerName, planner.used)
            })
          )
        }
        return Effect.matchEffect(result, {
          // A watched attempt was recorded as cancelled when the watcher interrupted it.
          onFailure: (failure) =>
            failure === cutOff
              ? Effect.fail(failure)
              : left() <= 0
              ? Effect.flatMap(parts.record(candidate, log, startedAt, undefined, true), () => Effect.fail(cut()))
              : Effect.flatMap(parts.record(candidate, log, startedAt, failure), () => attempt(failure)),
          onSuccess: (value) =>
            Effect.as(parts.record(candidate, log, startedAt, undefined), {
              result: value,
              served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
            })
        })
      })
      return step.delayMs > 0 ? Effect.andThen(Effect.sleep(Math.max(0, Math.min(step.delayMs, left()))), run) : run
    }
    return live ? Effect.provideService(attempt(undefined), RequestDeadline, deadlineAt) : attempt(undefined)
  })
