import { Cause, Clock, Context, Effect, Layer, Random, Stream } from "effect"
import { checkCapabilities } from "../Domain/ChatCapabilityGate.ts"
import type { ChatCompletion } from "../Domain/ChatCompletion.ts"
import type { ChatRequest } from "../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../Domain/ChatStreamEvent.ts"
import type { ModelConfig } from "../Domain/GatewayConfig.ts"
import { GatewayError, UpstreamFailure } from "../Domain/GatewayError.ts"
import type { UsageAttempt } from "../Domain/UsageEvent.ts"
import type { ChatProvider } from "../Providers/ChatProvider.ts"
import { DeploymentHealth } from "./DeploymentHealth.ts"
import { GatewayConfigFile } from "./GatewayConfigLoader.ts"
import { ModelCatalog } from "./ModelCatalog.ts"
import { ProviderRegistry } from "./ProviderRegistry.ts"
import { type Candidate, deploymentKey, RoutePlanner } from "./RoutePlanner.ts"
import { finalRoutingError } from "./RoutingError.ts"

/** Which route served the request: the public model actually used and its provider. */
export interface Served {
  readonly model: string
  readonly provider: string
  readonly upstreamModel: string
}

/** Events of a routed stream: a `Served` marker opens every attempt, so the model is known at commit. */
export type RoutedEvent = ChatStreamEvent | { readonly _tag: "Served"; readonly served: Served }

/** Collects every provider call of one request, for the usage event and response headers. */
export class AttemptLog {
  readonly attempts: Array<UsageAttempt> = []
}

/** An event that reaches the client: after it a failure can no longer fall back (issue: streams commit). */
export const commits = (event: ChatStreamEvent): boolean =>
  event._tag === "TextDelta" ||
  event._tag === "ReasoningDelta" ||
  event._tag === "RefusalDelta" ||
  event._tag === "ToolCallStart" ||
  event._tag === "Finish"

const unavailable = (candidate: Candidate) =>
  new GatewayError({
    reason: new UpstreamFailure({
      message: `The provider '${candidate.deployment.provider}' has no chat adapter.`,
      provider: candidate.deployment.provider,
      kind: "rejected"
    })
  })

export class ProviderRouter extends Context.Service<
  ProviderRouter,
  {
    readonly complete: (
      model: ModelConfig,
      request: ChatRequest,
      log: AttemptLog
    ) => Effect.Effect<{ readonly completion: ChatCompletion; readonly served: Served }, GatewayError>
    readonly stream: (model: ModelConfig, request: ChatRequest, log: AttemptLog) => Stream.Stream<RoutedEvent, GatewayError>
  }
>()("gateway/ProviderRouter") {
  static readonly layer = Layer.effect(
    ProviderRouter,
    Effect.gen(function* () {
      const settings = (yield* GatewayConfigFile).config.routing
      const { config: gatewayConfig } = yield* GatewayConfigFile
      const catalog = yield* ModelCatalog
      const registry = yield* ProviderRegistry
      const health = yield* DeploymentHealth

      // The request's model first, then each configured fallback able to take everything the request uses.
      const planFor = Effect.fn("ProviderRouter.plan")(function* (model: ModelConfig, request: ChatRequest) {
        const models = [model]
        for (const id of model.fallbacks) {
          const fallback = catalog.find(id)?.config
          if (fallback === undefined) continue
          const maxInline = gatewayConfig.files.max_inline_mb * 1024 * 1024
          if (checkCapabilities(request, fallback, { maxInlineFileBytes: maxInline }) === undefined) models.push(fallback)
        }
        const open = new Set<string>()
        for (const m of models) {
          for (const d of m.deployments) if (yield* health.isOpen(deploymentKey(d))) open.add(deploymentKey(d))
        }
        const seed = yield* Random.nextInt
        let state = seed
        // A small deterministic generator seeded from Effect's Random, so tests can fix it.
        const random = () => {
          state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
          return state / 2_147_483_648
        }
        return new RoutePlanner(models, settings, (key) => open.has(key), random)
      })

      const record = (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled = false) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const status = error?.reason._tag === "UpstreamFailure" ? error.reason.status : undefined
          log.attempts.push({
            provider: candidate.deployment.provider,
            model: candidate.model.id,
            outcome: cancelled ? "cancelled" : error === undefined ? "ok" : "error",
            ...(status === undefined ? {} : { status }),
            ms: now - startedAt
          })
          if (cancelled) return
          if (error === undefined) yield* health.recordSuccess(candidate.key)
          else if (error.reason._tag === "UpstreamFailure" && error.reason.clientFault !== true) {
            yield* health.recordFailure(candidate.key, { now, retryAfterMs: error.retryAfterMs })
          }
        })

      const deadline = <A, R>(effect: Effect.Effect<A, GatewayError, R>, model: ModelConfig) =>
        Effect.timeoutOrElse(effect, {
          duration: settings.deadline_ms,
          orElse: () =>
            Effect.fail(
              new GatewayError({
                reason: new UpstreamFailure({
                  message: `No provider answered for model '${model.id}' within ${settings.deadline_ms} ms.`,
                  provider: "gateway",
                  kind: "timeout"
                })
              })
            )
        })

      const complete = Effect.fn("ProviderRouter.complete")(function* (model: ModelConfig, request: ChatRequest, log: AttemptLog) {
        const planner = yield* planFor(model, request)
        const attempt = (error: GatewayError | undefined): Effect.Effect<{ completion: ChatCompletion; served: Served }, GatewayError> => {
          const step = planner.next(error)
          if (step === undefined) return Effect.fail(finalRoutingError(model, error, log))
          const { candidate } = step
          const provider: ChatProvider | undefined = registry.chat(candidate.deployment.provider)
          return Effect.gen(function* () {
            if (step.delayMs > 0) yield* Effect.sleep(step.delayMs)
            const startedAt = yield* Clock.currentTimeMillis
            if (provider === undefined) {
              const error = unavailable(candidate)
              yield* record(candidate, log, startedAt, error)
              return yield* error
            }
            const completion = yield* provider
              .complete(request, { upstreamModel: candidate.deployment.model, model: candidate.model })
              .pipe(
                Effect.tapError((e) => record(candidate, log, startedAt, e)),
                Effect.onInterrupt(() => record(candidate, log, startedAt, undefined, true)),
                Effect.withSpan("ProviderRouter.attempt", {
                  attributes: { "gateway.provider": candidate.deployment.provider, "gateway.model": candidate.model.id, "gateway.attempt": planner.used }
                })
              )
            yield* record(candidate, log, startedAt, undefined)
            return {
              completion,
              served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
            }
          }).pipe(Effect.catch((e) => attempt(e)))
        }
        return yield* deadline(attempt(undefined), model)
      })

      const stream = (model: ModelConfig, request: ChatRequest, log: AttemptLog): Stream.Stream<RoutedEvent, GatewayError> =>
        Stream.unwrap(
          Effect.map(planFor(model, request), (planner) => {
            let committed = false
            const attempt = (error: GatewayError | undefined): Stream.Stream<RoutedEvent, GatewayError> => {
              const step = planner.next(error)
              if (step === undefined) return Stream.fail(finalRoutingError(model, error, log))
              const { candidate } = step
              const provider = registry.chat(candidate.deployment.provider)
              let startedAt = 0
              const served: RoutedEvent = {
                _tag: "Served",
                served: { model: candidate.model.id, provider: candidate.deployment.provider, upstreamModel: candidate.deployment.model }
              }
              const events: Stream.Stream<RoutedEvent, GatewayError> =
                provider === undefined
                  ? Stream.fail(unavailable(candidate))
                  : provider.stream(request, { upstreamModel: candidate.deployment.model, model: candidate.model })
              return Stream.fromEffect(
                Effect.gen(function* () {
                  if (step.delayMs > 0) yield* Effect.sleep(step.delayMs)
                  startedAt = yield* Clock.currentTimeMillis
                })
              ).pipe(
                Stream.flatMap(() => Stream.concat(Stream.make(served), events)),
                Stream.tap((event) =>
                  Effect.sync(() => {
                    if (event._tag !== "Served" && commits(event)) committed = true
                  })
                ),
                // Success and cancellation are recorded here; failures where they are caught below.
                Stream.onExit((exit) =>
                  exit._tag === "Success"
                    ? record(candidate, log, startedAt, undefined)
                    : Cause.hasInterruptsOnly(exit.cause)
                      ? record(candidate, log, startedAt, undefined, true)
                      : Effect.void
                ),
                Stream.catch((e) =>
                  Stream.fromEffect(record(candidate, log, startedAt, e)).pipe(
                    // After the first content the client has seen this route: no silent switch any more.
                    Stream.flatMap(() => (committed ? Stream.fail(e) : attempt(e)))
                  )
                )
              )
            }
            return attempt(undefined)
          })
        )

      return ProviderRouter.of({ complete, stream })
    })
  )
}
