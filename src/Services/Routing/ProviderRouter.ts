import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import type * as Stream from "effect/Stream"
import { checkCapabilities } from "../../Domain/ChatCapabilityGate.ts"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { EmbeddingResult } from "../../Domain/EmbeddingResult.ts"
import { imageFamilyOf } from "../../Domain/ImageModel.ts"
import type { ImageJob } from "../../Domain/ImageRequest.ts"
import type { ImageResult } from "../../Domain/ImageResult.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, UpstreamFailure } from "../../Domain/GatewayError.ts"
import { type Deadline, makeDeadline, within } from "../../Streams/Deadline.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import type { ChatProvider } from "../../Providers/ChatProvider.ts"
import { DeploymentHealth } from "./DeploymentHealth.ts"
import { embeddingRoutes } from "./EmbeddingRoutes.ts"
import { imageRoutes } from "./ImageRoutes.ts"
import { transcriptionRoutes } from "./TranscriptionRoutes.ts"
import type { MeasuredAudio, TranscriptionRequest, UpstreamTranscript } from "../../Domain/Transcription.ts"
import { planTranscription } from "../../Domain/TranscriptionGate.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { ProviderRegistry } from "./ProviderRegistry.ts"
import { routedCall } from "./RoutedCall.ts"
import { routedStream } from "./RoutedStream.ts"
import { type Candidate, deploymentKey, RoutePlanner } from "./RoutePlanner.ts"
import { completionAttributes, genAiProviderNames } from "./GenAiSpans.ts"
import { finalRoutingError } from "./RoutingError.ts"
import { keylessRoutes } from "./KeylessRoutes.ts"
import { keylessProviders } from "../Config/ProviderKeys.ts"
import { type AttemptLog, commits, type RoutedEvent, type Served } from "./RoutedAttempts.ts"

/** Which deployments (by model and provider id) a request may take; the rest are left out of its plan. */
export type RouteFilter = (model: ModelConfig, provider: string) => boolean

const admitted = (models: ReadonlyArray<ModelConfig>, admit: RouteFilter): Array<ModelConfig> =>
  models.flatMap((m) => {
    const deployments = m.deployments.filter((d) => admit(m, d.provider))
    return deployments.length === 0 ? [] : [deployments.length === m.deployments.length ? m : { ...m, deployments }]
  })

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
      log: AttemptLog,
      admit?: RouteFilter,
      deadline?: Deadline
    ) => Effect.Effect<{ readonly completion: ChatCompletion; readonly served: Served }, GatewayError>
    readonly stream: (model: ModelConfig, request: ChatRequest, log: AttemptLog, admit?: RouteFilter, deadline?: Deadline) => Stream.Stream<RoutedEvent, GatewayError>
    /**
     * The request's routing deadline (`routing.deadline_ms` from now), the one place it is made;
     * each method starts one when the caller passes none. A stream is bounded by it until its
     * first chunk (`ChatCompletions`).
     */
    readonly deadline: (model: ModelConfig) => Effect.Effect<Deadline>
    /** Embeddings over the same plan, retries, fallbacks, circuit breaker and deadline as `complete`. */
    readonly embed: (
      model: ModelConfig,
      request: EmbeddingRequest,
      log: AttemptLog,
      deadline?: Deadline
    ) => Effect.Effect<{ readonly result: EmbeddingResult; readonly served: Served }, GatewayError>
    /** Image generation over the same routed call; fallbacks only to models whose catalogue accepts the job's options. */
    readonly images: (
      model: ModelConfig,
      job: ImageJob,
      log: AttemptLog,
      deadline?: Deadline
    ) => Effect.Effect<{ readonly result: ImageResult; readonly served: Served }, GatewayError>
    /** Speech to text over the same routed call; each model is asked for what its catalogue data allows. */
    readonly transcribe: (
      model: ModelConfig,
      request: TranscriptionRequest,
      audio: MeasuredAudio,
      log: AttemptLog,
      deadline?: Deadline
    ) => Effect.Effect<{ readonly result: UpstreamTranscript; readonly served: Served }, GatewayError>
  }
>()("gateway/ProviderRouter") {
  static readonly layer = Layer.effect(
    ProviderRouter,
    Effect.gen(function* () {
      const settings = (yield* GatewayConfigFile).config.routing
      const loaded = yield* GatewayConfigFile
      const gatewayConfig = loaded.config
      const usableRoutes = keylessRoutes(keylessProviders(gatewayConfig), loaded.keyVariables ?? {})
      const catalog = yield* ModelCatalog
      const registry = yield* ProviderRegistry
      const health = yield* DeploymentHealth
      const spans = yield* optionalSpans
      const providerName = genAiProviderNames(gatewayConfig.providers)

      const maxInlineFileBytes = gatewayConfig.files.max_inline_mb * 1024 * 1024
      const noneOpen: ReadonlySet<string> = new Set()

      // Which deployments have an open circuit; one store read per deployment of the plan.
      const openKeys = (models: ReadonlyArray<ModelConfig>): Effect.Effect<ReadonlySet<string>> => {
        const keys: Array<string> = []
        for (const m of models) for (const d of m.deployments) keys.push(deploymentKey(d))
        if (keys.length === 1) return Effect.map(health.isOpen(keys[0]!), (open) => (open ? new Set(keys) : noneOpen))
        return Effect.map(
          Effect.forEach(keys, (key) => health.isOpen(key)),
          (flags) => new Set(keys.filter((_, i) => flags[i]))
        )
      }

      // The request's model first, then each configured fallback able to take everything the
      // request uses; with `admit`, only the deployments it admits (strict translation, native-only parts).
      const planFor = (model: ModelConfig, request: ChatRequest, admit?: RouteFilter): Effect.Effect<RoutePlanner, GatewayError> => {
        const models = [model]
        for (const id of model.fallbacks) {
          const fallback = catalog.find(id)?.config
          if (fallback === undefined) continue
          if (checkCapabilities(request, fallback, { maxInlineFileBytes }) === undefined) models.push(fallback)
        }
        return plannerOf(admit === undefined ? models : admitted(models, admit))
      }

      const plannerOf = (all: ReadonlyArray<ModelConfig>): Effect.Effect<RoutePlanner, GatewayError> => {
        const models = usableRoutes(all)
        return models instanceof GatewayError ? Effect.fail(models) : plannerOver(models)
      }
      const plannerOver = (models: ReadonlyArray<ModelConfig>): Effect.Effect<RoutePlanner> =>
        Effect.flatMap(openKeys(models), (open) =>
          Effect.map(Random.nextInt, (seed) => {
            let state = seed
            // A small deterministic generator seeded from Effect's Random, so tests can fix it.
            const random = () => {
              state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
              return state / 2_147_483_648
            }
            return new RoutePlanner(models, settings, (key) => open.has(key), random)
          })
        ).pipe(spans.span("ProviderRouter.plan"))

      const record = (candidate: Candidate, log: AttemptLog, startedAt: number, error: GatewayError | undefined, cancelled = false) =>
        Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<void> => {
          const status = error?.reason._tag === "UpstreamFailure" ? error.reason.status : undefined
          log.attempts.push({
            provider: candidate.deployment.provider,
            model: candidate.model.id,
            outcome: cancelled ? "cancelled" : error === undefined ? "ok" : "error",
            ...(status === undefined ? {} : { status }),
            ms: now - startedAt
          })
          if (cancelled) return Effect.void
          if (error === undefined) return health.recordSuccess(candidate.key)
          if (error.reason._tag === "UpstreamFailure" && error.reason.clientFault !== true) {
            return health.recordFailure(candidate.key, { now, retryAfterMs: error.retryAfterMs })
          }
          return Effect.void
        })

      const deadlineOf = (model: ModelConfig): Effect.Effect<Deadline> =>
        Effect.clockWith((clock) =>
          Effect.succeed(makeDeadline(clock, settings.deadline_ms, () =>
            new GatewayError({
              reason: new UpstreamFailure({
                message: `No provider answered for model '${model.id}' within ${settings.deadline_ms} ms.`,
                provider: "gateway",
                kind: "timeout"
              })
            })))
        )
      // The caller's deadline, or one started now.
      const withDeadline = <A>(model: ModelConfig, given: Deadline | undefined, use: (deadline: Deadline) => Effect.Effect<A, GatewayError>) =>
        given === undefined ? Effect.flatMap(deadlineOf(model), use) : use(given)

      const calls = { record, finalError: finalRoutingError, spans, providerName }
      const chatCalls = { ...calls, operation: "chat" as const }
      const embeddingCalls = { ...calls, operation: "embeddings" as const }

      const complete = (model: ModelConfig, request: ChatRequest, log: AttemptLog, admit?: RouteFilter, given?: Deadline) =>
        Effect.flatMap(planFor(model, request, admit), (planner) =>
          Effect.map(
            withDeadline(model, given, (deadline) => routedCall(chatCalls, model, planner, log, deadline, (candidate) => {
              const provider: ChatProvider | undefined = registry.chat(candidate.deployment.provider)
              if (provider === undefined) return Effect.fail(unavailable(candidate))
              // The adapter ends its upstream exchange at the deadline: no watcher per attempt.
              const call = provider.complete(request, { upstreamModel: candidate.deployment.model, model: candidate.model }, deadline)
              // Inside the attempt span: the answer's model, usage and finish reasons go on it.
              return spans.enabled
                ? Effect.tap(call, (completion) => Effect.annotateCurrentSpan(completionAttributes(completion, candidate.deployment.model)))
                : call
            })),
            ({ result, served }): { completion: ChatCompletion; served: Served } => ({ completion: result, served })
          )).pipe(spans.span("ProviderRouter.complete"))

      const stream = routedStream({
        plan: planFor,
        deadline: deadlineOf,
        provider: (id) => registry.chat(id),
        record,
        unavailable,
        finalError: finalRoutingError,
        commits,
        spans,
        providerName
      })

      const findModel = (id: string) => catalog.find(id)?.config
      const embed = (model: ModelConfig, request: EmbeddingRequest, log: AttemptLog, given?: Deadline) =>
        Effect.flatMap(plannerOf(embeddingRoutes(model, request, findModel, registry.embedding)), (planner) =>
          // `embeddingRoutes` kept only deployments whose provider has an embeddings adapter.
          // An embeddings call may be several upstream calls (batches): each attempt is watched.
          withDeadline(model, given, (deadline) => routedCall(embeddingCalls, model, planner, log, deadline, (candidate) =>
            within(registry.embedding(candidate.deployment.provider)!.embed(request, {
              upstreamModel: candidate.deployment.model,
              model: candidate.model
            }), deadline)))).pipe(spans.span("ProviderRouter.embed"))

      const imageCalls = { ...calls, operation: "generate_content" as const }
      const images = (model: ModelConfig, job: ImageJob, log: AttemptLog, given?: Deadline) =>
        Effect.flatMap(plannerOf(imageRoutes(model, job, findModel, registry.image)), (planner) =>
          // `imageRoutes` kept only deployments whose provider has an image adapter.
          // A Gemini image job is several calls: each attempt is watched, like embeddings.
          withDeadline(model, given, (deadline) => routedCall(imageCalls, model, planner, log, deadline, (candidate) =>
            within(registry.image(candidate.deployment.provider)!.generate(job, {
              upstreamModel: candidate.deployment.model,
              model: candidate.model,
              family: imageFamilyOf(candidate.model)
            }), deadline)))).pipe(spans.span("ProviderRouter.images"))

      const transcriptionCalls = { ...calls, operation: "transcription" as const }
      const transcribe = (model: ModelConfig, request: TranscriptionRequest, audio: MeasuredAudio, log: AttemptLog, given?: Deadline) =>
        Effect.flatMap(plannerOf(transcriptionRoutes(model, request, findModel, registry.transcription)), (planner) =>
          withDeadline(model, given, (deadline) => routedCall(transcriptionCalls, model, planner, log, deadline, (candidate) => {
            // Both were checked when the routes were chosen.
            const ask = planTranscription(request, candidate.model) as Exclude<ReturnType<typeof planTranscription>, GatewayError>
            // Uploads of up to 25 MB: each attempt is watched.
            return within(registry.transcription(candidate.deployment.provider)!.transcribe(request, audio, {
              upstreamModel: candidate.deployment.model,
              model: candidate.model,
              ask
            }), deadline)
          }))).pipe(spans.span("ProviderRouter.transcribe"))

      return ProviderRouter.of({ complete, stream, deadline: deadlineOf, embed, images, transcribe })
    })
  )
}
