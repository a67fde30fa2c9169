import * as Effect from "effect/Effect"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import type { AttemptLog } from "./RoutedAttempts.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

/** How attempts are logged and a final error is made: the router's, the same for every capability. */
export interface AttemptRecording {
  readonly record: (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled?: boolean) => Effect.Effect<void>
  readonly finalError: (model: ModelConfig, error: GatewayError | undefined, log: AttemptLog) => GatewayError
}

/**
 * The one retry and fallback policy of a request, shared by non-streamed calls (`RoutedCall`) and
 * streams (`RoutedStream`), which differ only in how an attempt runs. The planner says which
 * route comes next and after what backoff (retries on a route, then its fallbacks, the circuit
 * breaker); the deadline cuts the backoff short and stops new attempts; every attempt is logged
 * once. The commit point is its one parameter: `commits` says which stream event reaches the
 * client, after which a failure goes to the client instead of to the next route. A call commits
 * only by succeeding (`commits` absent).
 */
export interface AttemptPolicy {
  readonly deadline: Deadline
  /**
   * The next attempt after `error` (the first when it is undefined): its backoff waited (never past
   * the deadline) and the attempt counted; fails with the final error when the plan is spent, or
   * with the deadline's when it has passed.
   */
  readonly next: (error: GatewayError | undefined) => Effect.Effect<Candidate, GatewayError>
  /** Logs an attempt that ended well, or was cancelled (the request was interrupted, or the deadline cut it). */
  readonly ended: (candidate: Candidate, startedAt: number, cancelled?: boolean) => Effect.Effect<void>
  /**
   * Logs a failed attempt and decides what follows: succeeds when another attempt may be made;
   * fails with the error the client gets when not (committed: the failure itself; past the
   * deadline: the deadline's, the attempt counted as cancelled since the provider is not to blame).
   */
  readonly failed: (candidate: Candidate, startedAt: number, failure: GatewayError) => Effect.Effect<void, GatewayError>
  /** Notes events that reached the client; true once the request is committed to its route. */
  readonly observe: (events: ReadonlyArray<ChatStreamEvent>) => boolean
}

export const attemptPolicy = (
  recording: AttemptRecording,
  options: {
    readonly model: ModelConfig
    readonly planner: RoutePlanner
    readonly log: AttemptLog
    readonly deadline: Deadline
    /** The commit point: the first event for which it is true commits the request (streams). */
    readonly commits?: (event: ChatStreamEvent) => boolean
  }
): AttemptPolicy => {
  const { model, planner, log, deadline, commits } = options
  log.cooledDown = planner.cooledDown
  let committed = false

  const next = (error: GatewayError | undefined): Effect.Effect<Candidate, GatewayError> => {
    if (error !== undefined && deadline.left() <= 0) return Effect.fail(deadline.error())
    const step = planner.next(error)
    if (step === undefined) return Effect.fail(recording.finalError(model, error, log))
    const start = Effect.suspend(() => {
      if (deadline.left() <= 0) return Effect.fail(deadline.error())
      log.started++
      return Effect.succeed(step.candidate)
    })
    return step.delayMs > 0 ? Effect.andThen(Effect.sleep(Math.max(0, Math.min(step.delayMs, deadline.left()))), start) : start
  }

  const ended = (candidate: Candidate, startedAt: number, cancelled = false) =>
    recording.record(candidate, log, startedAt, undefined, cancelled)

  const failed = (candidate: Candidate, startedAt: number, failure: GatewayError): Effect.Effect<void, GatewayError> => {
    // After the first content the client has seen this route: no silent switch any more.
    if (committed) return Effect.andThen(recording.record(candidate, log, startedAt, failure), Effect.fail(failure))
    // The deadline's own error is the attempt cut at it (by its exchange's timer or `within`),
    // whatever the clock reads now: a timer may fire a millisecond before the clock says so.
    if (failure !== deadline.error() && deadline.left() > 0) return recording.record(candidate, log, startedAt, failure)
    return Effect.andThen(recording.record(candidate, log, startedAt, undefined, true), Effect.fail(deadline.error()))
  }

  const observe = (events: ReadonlyArray<ChatStreamEvent>): boolean => {
    if (!committed && commits !== undefined) committed = events.some(commits)
    return committed
  }

  return { deadline, next, ended, failed, observe }
}
