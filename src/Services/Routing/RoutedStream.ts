import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { ChatProvider } from "../../Providers/ChatProvider.ts"
import type { Deadline } from "../../Streams/Deadline.ts"
import type { OptionalSpans } from "../../Streams/OptionalSpans.ts"
import type * as Tracer from "effect/Tracer"
import { type AttemptRecording, attemptPolicy } from "./AttemptPolicy.ts"
import { attemptAttributes, usageAttributes } from "./GenAiSpans.ts"
import type { AttemptLog, RoutedEvent } from "./RoutedAttempts.ts"
import type { Candidate, RoutePlanner } from "./RoutePlanner.ts"

export interface RoutedStreamParts extends AttemptRecording {
  readonly plan: (
    model: ModelConfig,
    request: ChatRequest,
    admit?: (model: ModelConfig, provider: string) => boolean
  ) => Effect.Effect<RoutePlanner, GatewayError>
  /** The request's deadline when the caller has none (see `ProviderRouter.deadline`). */
  readonly deadline: (model: ModelConfig) => Effect.Effect<Deadline>
  readonly provider: (id: string) => ChatProvider | undefined
  readonly unavailable: (candidate: Candidate) => GatewayError
  /** The commit point: an event that reaches the client, after which a failure no longer falls back. */
  readonly commits: (event: ChatStreamEvent) => boolean
  /** One span per attempt, open while it streams, when a tracer is installed. */
  readonly spans: OptionalSpans
  readonly providerName: (id: string) => string
}

interface Attempt {
  readonly candidate: Candidate
  readonly scope: Scope.Closeable
  readonly startedAt: number
  readonly pull: Pull.Pull<Arr.NonEmptyReadonlyArray<ChatStreamEvent>, GatewayError>
  /** Set once the attempt's outcome is in the log. */
  recorded: boolean
  readonly span: Tracer.Span | undefined
}

/** The GenAI attributes a batch of stream events adds to its attempt's span. */
const annotate = (span: Tracer.Span, events: ReadonlyArray<ChatStreamEvent>, reasons: Array<string>) => {
  for (const event of events) {
    if (event._tag === "Usage") for (const [key, value] of Object.entries(usageAttributes(event.usage))) span.attribute(key, value)
    else if (event._tag === "Finish") {
      reasons.push(event.reason)
      span.attribute("gen_ai.response.finish_reasons", [...reasons])
    }
  }
}

type Events = Arr.NonEmptyReadonlyArray<RoutedEvent>

/**
 * The routed stream: each attempt opens with a `Served` marker, then the provider's events.
 * Retries, fallback, backoff, the deadline and the log are the request's `AttemptPolicy`, as
 * for calls: until the first content an attempt that fails is recorded and the next route is
 * taken invisibly; after it the failure goes to the client. Every attempt is logged once: ok at
 * its end, the error when it fails, cancelled when the request is interrupted.
 *
 * One pull per batch of provider events, whatever the number of attempts: a hand-written
 * channel rather than a pipeline of stream operators, each of which would cost a few effects
 * per batch.
 */
export const routedStream = (parts: RoutedStreamParts) =>
(
  model: ModelConfig,
  request: ChatRequest,
  log: AttemptLog,
  admit?: (model: ModelConfig, provider: string) => boolean,
  given?: Deadline
): Stream.Stream<RoutedEvent, GatewayError> =>
  Stream.fromChannel(
    Channel.fromTransform((_, scope) =>
      Effect.map(Effect.zip(parts.plan(model, request, admit), given === undefined ? parts.deadline(model) : Effect.succeed(given)), ([planner, deadline]) => {
        const policy = attemptPolicy(parts, { model, planner, log, deadline, commits: parts.commits })
        let started = false
        // The attempt being read, with its read.
        let current: { readonly attempt: Attempt; readonly read: Pull.Pull<Events, GatewayError> } | undefined
        let served: Events | undefined

        // Its scope closed with its outcome (the span ends with it, the upstream call is let go).
        const close = (attempt: Attempt, error: GatewayError | undefined) => {
          attempt.recorded = true
          if (attempt.span !== undefined && error === undefined) attempt.span.attribute("gen_ai.response.model", attempt.candidate.deployment.model)
          return Scope.close(attempt.scope, error === undefined ? Exit.void : Exit.fail(error))
        }
        const settle = (attempt: Attempt) => Effect.andThen(policy.ended(attempt.candidate, attempt.startedAt), close(attempt, undefined))

        // One read per attempt, built when it opens and run for every batch.
        const readOf = (attempt: Attempt): Pull.Pull<Events, GatewayError> => {
          const span = attempt.span
          const reasons: Array<string> = []
          return attempt.pull.pipe(
            Effect.map((events): Events => {
              policy.observe(events)
              if (span !== undefined) annotate(span, events, reasons)
              return events
            }),
            Effect.catch((failure): Effect.Effect<Events, GatewayError | Cause.Done> => {
              if (Cause.isDone(failure)) return Effect.andThen(settle(attempt), Cause.done())
              // The next route is chosen only once this attempt is in the log (suspended), so a
              // final error lists it.
              return close(attempt, failure).pipe(
                Effect.andThen(policy.failed(attempt.candidate, attempt.startedAt, failure)),
                Effect.andThen(Effect.suspend(() => Effect.andThen(open(failure), next)))
              )
            })
          )
        }

        const open = (error: GatewayError | undefined): Effect.Effect<void, GatewayError> =>
          Effect.flatMap(policy.next(error), (candidate) => start(candidate))
        const start = (candidate: Candidate): Effect.Effect<void, GatewayError> => {
          const provider = parts.provider(candidate.deployment.provider)
          const events = provider === undefined
            ? Stream.fail(parts.unavailable(candidate))
            : provider.stream(request, { upstreamModel: candidate.deployment.model, model: candidate.model })
          // Ended with the attempt's scope, so it carries the attempt's outcome.
          const spanOf = (attemptScope: Scope.Scope) =>
            parts.spans.enabled
              ? Scope.provide(attemptScope)(
                Effect.makeSpanScoped("ProviderRouter.attempt", {
                  attributes: attemptAttributes("chat", candidate, parts.providerName, planner.used)
                })
              )
              : Effect.succeed(undefined)
          return Effect.flatMap(Scope.fork(scope), (attemptScope) =>
            Effect.flatMap(Effect.zip(Clock.currentTimeMillis, spanOf(attemptScope)), ([startedAt, span]) =>
              Effect.flatMap(Channel.toPullScoped(events.channel, attemptScope), (pull) => {
                const attempt: Attempt = { candidate, scope: attemptScope, startedAt, pull, recorded: false, span }
                current = { attempt, read: readOf(attempt) }
                served = [{
                  _tag: "Served",
                  served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
                }]
                // An attempt still open when the request ends: cancelled if it was interrupted,
                // done if the reader simply had enough.
                return Scope.addFinalizerExit(scope, (exit) => {
                  if (attempt.recorded) return Effect.void
                  if (Exit.isSuccess(exit)) return settle(attempt)
                  return Cause.hasInterruptsOnly(exit.cause)
                    ? Effect.andThen(
                      Effect.sync(() => {
                        attempt.recorded = true
                      }),
                      policy.ended(candidate, startedAt, true)
                    )
                    : Effect.void
                })
              })))
        }

        const next: Pull.Pull<Events, GatewayError> = Effect.suspend(() => {
          if (served !== undefined) {
            const marker = served
            served = undefined
            return Effect.succeed(marker)
          }
          if (!started) {
            started = true
            return Effect.andThen(open(undefined), next)
          }
          if (current === undefined || current.attempt.recorded) return Cause.done()
          return current.read
        })
        return next
      })
    )
  )
