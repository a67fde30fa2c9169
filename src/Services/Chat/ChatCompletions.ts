import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { checkCapabilities } from "../../Domain/ChatCapabilityGate.ts"
import { estimatePromptTokens } from "../../Domain/ChatTokenEstimate.ts"
import { advisoryFields, type ChatRequest, type NativeRequest } from "../../Domain/ChatRequest.ts"
import type { ModelConfig, ProviderConfig } from "../../Domain/GatewayConfig.ts"
import {
  emptyReport,
  type ProviderFields,
  strictViolation,
  type TranslationReport,
  translationReport
} from "../../Domain/TranslationReport.ts"
import { providerFields } from "../../Providers/ProviderFields.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { encodedEvents } from "../../Streams/ChatEventStream.ts"
import { withStreamTimeouts } from "../../Streams/StreamTimeouts.ts"
import type { Streamed } from "../Usage/RequestOutcome.ts"
import type { ChatEncoding, ChatResult } from "./ChatEncoding.ts"
import { type DeliveryNeeds, DocumentResolver } from "./DocumentResolver.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { ProviderRegistry } from "../Routing/ProviderRegistry.ts"
import { ProviderRouter, type RouteFilter } from "../Routing/ProviderRouter.ts"
import type { AttemptLog, Served } from "../Routing/RoutedAttempts.ts"
import { StreamTally } from "../../Streams/StreamTally.ts"

/** The translation report on the request's span, in the client's field names. */
const translationAttributes = (report: TranslationReport): Record<string, unknown> => ({
  "gateway.translation.dropped": report.dropped,
  "gateway.translation.rewritten": report.rewritten.map((r) => `${r.from}->${r.to}`)
})

/** The provider kind whose adapter takes each native API as it is (see `ChatRequest.native`). */
const nativeKinds: Readonly<Record<NativeRequest["api"], ProviderConfig["kind"]>> = {
  "anthropic-messages": "anthropic",
  "openai-responses": "openai"
}

export interface RunOptions {
  /** Strict translation: routes whose codec would drop a field of the request are not taken. */
  readonly strict?: boolean
  /** Only deployments on providers of this kind may serve (parts only that API takes); else a 400 naming `field`. */
  readonly only?: { readonly kind: ProviderConfig["kind"]; readonly field: string }
}

/**
 * The chat use case behind every dialect: catalogue lookup, capability gates before any
 * upstream call, documents, routing (strict translation and native-only parts filter the routes
 * first), metering and the translation report; the answer in the dialect of the encoding the
 * route passes (`ChatEncoding.ts`). HTTP concerns stay in the routes.
 */
export class ChatCompletions extends Context.Service<
  ChatCompletions,
  {
    /**
     * The use case in the dialect the encoding gives: chat completions (`chatEncoding`), the
     * chunk sequence for Messages (`chunkEncoding`), Responses' objects and events.
     */
    readonly run: <Body, Chunk>(
      request: ChatRequest,
      log: AttemptLog,
      projectId: string,
      encoding: ChatEncoding<Body, Chunk>,
      options?: RunOptions
    ) => Effect.Effect<ChatResult<Body, Chunk>, GatewayError>
    /**
     * Input tokens of a request: the provider's own count where the model has a deployment whose
     * provider counts natively (Anthropic, for a Messages body), else the gateway's estimate.
     */
    readonly countTokens: (request: ChatRequest) => Effect.Effect<{ readonly inputTokens: number; readonly counted: boolean }, GatewayError>
  }
>()("gateway/ChatCompletions") {
  static readonly layer = Layer.effect(
    ChatCompletions,
    Effect.gen(function* () {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const registry = yield* ProviderRegistry
      const documents = yield* DocumentResolver
      const { config } = yield* GatewayConfigFile
      const providerKinds = new Map(config.providers.map((p) => [p.id, p.kind]))
      const providerConfigs = new Map(config.providers.map((p) => [p.id, p]))
      // The catalogue is fixed while the process runs: one field table per provider and model, made
      // on first use. Found by the two config objects, not by a key string made anew per request.
      const tables = new WeakMap<ProviderConfig, WeakMap<ModelConfig, ProviderFields>>()
      const tableOf = (settings: ProviderConfig, model: ModelConfig): ProviderFields => {
        let byModel = tables.get(settings)
        if (byModel === undefined) tables.set(settings, (byModel = new WeakMap()))
        let table = byModel.get(model)
        if (table === undefined) byModel.set(model, (table = providerFields(settings, model)))
        return table
      }
      const reportFor = (request: ChatRequest, provider: string, model: ModelConfig): TranslationReport => {
        const settings = providerConfigs.get(provider)
        // A native call translates nothing: the provider gets the client's own request.
        if (settings === undefined || (request.native !== undefined && nativeKinds[request.native.api] === settings.kind)) return emptyReport
        return translationReport(request, tableOf(settings, model), advisoryFields)
      }
      const reportOf = (request: ChatRequest, served: Served): TranslationReport | undefined => {
        const model = catalog.find(served.model)?.config
        return model === undefined ? undefined : reportFor(request, served.provider, model)
      }
      // Every (model, provider) a request may be routed to: the model's deployments, then its fallbacks'.
      const routesOf = (model: ModelConfig) =>
        [model, ...model.fallbacks.flatMap((id) => catalog.find(id)?.config ?? [])].flatMap((m) =>
          m.deployments.map((d) => ({ model: m, provider: d.provider }))
        )
      /**
       * The route filter of the options, checked before anything goes upstream: strict mode
       * keeps routes whose report drops nothing; `only` keeps providers of one kind. No route
       * left is the client's 400, naming the field.
       */
      const filterFor = (request: ChatRequest, model: ModelConfig, options: RunOptions): RouteFilter | GatewayError => {
        const only = options.only
        const byKind: RouteFilter = only === undefined ? () => true : (_, provider) => providerKinds.get(provider) === only.kind
        const admit: RouteFilter = options.strict !== true
          ? byKind
          : (m, provider) => byKind(m, provider) && strictViolation(reportFor(request, provider, m)) === undefined
        const routes = routesOf(model)
        if (routes.some((r) => admit(r.model, r.provider))) return admit
        if (only !== undefined && !routes.some((r) => byKind(r.model, r.provider))) {
          return GatewayError.invalid(
            `'${only.field}' can only be served by an ${only.kind} provider, and no ${only.kind} deployment serves the model '${model.id}'.`,
            only.field,
            "unsupported_parameter"
          )
        }
        const first = routes.find((r) => byKind(r.model, r.provider))
        const field = first === undefined ? undefined : strictViolation(reportFor(request, first.provider, first.model))
        return GatewayError.invalid(
          `Strict translation: '${field}' would be dropped, since no provider serving the model '${model.id}' has an equivalent. ` +
            "Remove the field, or send the request without strict mode.",
          field,
          "strict_translation"
        )
      }

      // What every route this model may take (its deployments and fallbacks) needs from documents.
      const deliveryNeeds = (model: ModelConfig, projectId: string): DeliveryNeeds => {
        const models = [model, ...model.fallbacks.flatMap((id) => catalog.find(id)?.config ?? [])]
        const kinds = models.flatMap((m) => m.deployments.map((d) => providerKinds.get(d.provider)))
        return {
          projectId,
          vision: model.capabilities.vision,
          someRouteLacksNativePdf: kinds.some((kind) => kind === "openai-compatible"),
          inlineImageUrls: kinds.some((kind) => kind === "gemini")
        }
      }
      const maxInlineFileBytes = config.files.max_inline_mb * 1024 * 1024

      const spans = yield* optionalSpans
      const run = Effect.fnUntraced(function* <Body, Chunk>(
        input: ChatRequest,
        log: AttemptLog,
        projectId: string,
        encoding: ChatEncoding<Body, Chunk>,
        options: RunOptions = {}
      ) {
        const model = (yield* catalog.require(input.model, "chat")).config
        const violation = checkCapabilities(input, model, { maxInlineFileBytes })
        if (violation !== undefined) return yield* violation
        const admit = options.strict === true || options.only !== undefined ? filterFor(input, model, options) : undefined
        if (admit instanceof GatewayError) return yield* admit
        // Plain-text conversations, the common case, have no document to resolve.
        const request = input.messages.some((m) => m.role === "user" && typeof m.content !== "string")
          ? yield* documents.resolve(input, deliveryNeeds(model, projectId))
          : input
        const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        // One deadline for the whole request: the router's attempts, and a stream's first chunk.
        const deadline = yield* router.deadline(model)
        if (!request.stream) {
          const { completion, served } = yield* router.complete(model, request, log, admit, deadline)
          const report = reportOf(request, served)
          if (spans.enabled && report !== undefined && (report.dropped.length > 0 || report.rewritten.length > 0)) {
            yield* Effect.annotateCurrentSpan(translationAttributes(report))
          }
          return {
            _tag: "Json",
            body: encoding.json(completion, { model: served.model, created, served }),
            outcome: { _tag: "Answered", served, usage: completion.usage, units: 0, fixedCostNanoUsd: undefined, translation: report }
          } satisfies ChatResult<Body, Chunk>
        }
        // The stream's outcome: what passes is kept in the tally, read when the request ends.
        const tally = new StreamTally()
        const outcome: Streamed = {
          _tag: "Streamed",
          tally,
          estimatePromptTokens: () => estimatePromptTokens(request),
          translation: (served) => reportOf(request, served)
        }
        const chunks = encodedEvents(router.stream(model, request, log, admit, deadline), (served) => encoding.stream(served, created), model.id, tally)
        // Until its first chunk a stream is bounded by the routing deadline, like a plain call.
        const bounded = withStreamTimeouts(chunks, deadline)
        if (!spans.enabled) return { _tag: "Stream", chunks: bounded, outcome } satisfies ChatResult<Body, Chunk>
        // Traced: the report goes on the request's span once the first chunk names the route that serves.
        let reported = false
        const traced = Stream.tap(bounded, () => {
          if (reported) return Effect.void
          reported = true
          const report = tally.served === undefined ? undefined : outcome.translation(tally.served)
          return report === undefined || (report.dropped.length === 0 && report.rewritten.length === 0)
            ? Effect.void
            : Effect.annotateCurrentSpan(translationAttributes(report))
        })
        return { _tag: "Stream", chunks: traced, outcome } satisfies ChatResult<Body, Chunk>
      }, spans.span("ChatCompletions.run"))
      const countTokens = Effect.fn("ChatCompletions.countTokens")(function* (request: ChatRequest) {
        const model = (yield* catalog.require(request.model, "chat")).config
        const native = request.native
        if (native !== undefined) {
          for (const deployment of model.deployments) {
            if (providerKinds.get(deployment.provider) !== nativeKinds[native.api]) continue
            const counter = registry.chat(deployment.provider)?.countTokens
            if (counter === undefined) continue
            const inputTokens = yield* counter(native, { upstreamModel: deployment.model, model })
            return { inputTokens, counted: true }
          }
        }
        return { inputTokens: estimatePromptTokens(request), counted: false }
      })

      return ChatCompletions.of({ run, countTokens })
    })
  )
}
