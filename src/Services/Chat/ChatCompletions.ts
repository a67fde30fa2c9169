import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { checkCapabilities } from "../../Domain/ChatCapabilityGate.ts"
import { estimatePromptTokens } from "../../Domain/ChatTokenEstimate.ts"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import { completionToWire } from "../../Domain/ChatCompletionWire.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, UpstreamFailure } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { encodedEvents, type StreamEncoder } from "../../Streams/ChatEventStream.ts"
import { ChunkNormaliser, type ChunkWire } from "../../Streams/ChunkNormaliser.ts"
import { withStreamTimeouts } from "../../Streams/StreamTimeouts.ts"
import { type DeliveryNeeds, DocumentResolver } from "./DocumentResolver.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { ProviderRouter } from "../Routing/ProviderRouter.ts"
import type { RequestMeter } from "../Usage/UsageMeter.ts"

export type ChatResult<Body = ReturnType<typeof completionToWire>, Chunk = ChunkWire> =
  | { readonly _tag: "Json"; readonly body: Body }
  /** Chunks in the dialect's order; fails only before the first chunk (then nothing was sent yet). */
  | { readonly _tag: "Stream"; readonly chunks: Stream.Stream<Chunk, GatewayError> }

/**
 * How a dialect answers: the body of a non-streamed answer from the neutral completion, and a
 * stream encoder per attempt. Chat completions, Responses and Messages differ only here; the
 * gates, documents, routing, retries, fallbacks and metering before it are the same.
 */
export interface ChatEncoding<Body, Chunk> {
  readonly json: (completion: ChatCompletion, served: { readonly model: string; readonly created: number }) => Body
  readonly stream: (model: string, created: number) => StreamEncoder<Chunk>
}

/** The chat-completions dialect: `chat.completion` objects and spec 6.3 chunks under one `svc_` id. */
const chatEncoding = (includeUsage: boolean): ChatEncoding<ReturnType<typeof completionToWire>, ChunkWire> => {
  const id = Ids.responseId()
  return {
    json: (completion, served) => completionToWire(completion, { id, created: served.created, model: served.model }),
    stream: (model, created) => new ChunkNormaliser({ id, created, model }, includeUsage)
  }
}

/**
 * The chat completion use case: catalogue lookup, capability gates before any upstream call,
 * routing, and the response in the spec's shape. HTTP concerns stay in the route.
 */
export class ChatCompletions extends Context.Service<
  ChatCompletions,
  {
    readonly run: (request: ChatRequest, meter: RequestMeter, projectId: string) => Effect.Effect<ChatResult, GatewayError>
    /** The same use case answering in another dialect. */
    readonly runWith: <Body, Chunk>(
      request: ChatRequest,
      meter: RequestMeter,
      projectId: string,
      encoding: ChatEncoding<Body, Chunk>
    ) => Effect.Effect<ChatResult<Body, Chunk>, GatewayError>
  }
>()("gateway/ChatCompletions") {
  static readonly layer = Layer.effect(
    ChatCompletions,
    Effect.gen(function* () {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const documents = yield* DocumentResolver
      const { config } = yield* GatewayConfigFile
      const providerKinds = new Map(config.providers.map((p) => [p.id, p.kind]))

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
      const deadlineMs = config.routing.deadline_ms

      const spans = yield* optionalSpans
      const runWith = Effect.fnUntraced(function* <Body, Chunk>(
        input: ChatRequest,
        meter: RequestMeter,
        projectId: string,
        encoding: ChatEncoding<Body, Chunk>
      ) {
        const model = (yield* catalog.require(input.model, "chat")).config
        const violation = checkCapabilities(input, model, { maxInlineFileBytes })
        if (violation !== undefined) return yield* violation
        // Plain-text conversations, the common case, have no document to resolve.
        const request = input.messages.some((m) => m.role === "user" && typeof m.content !== "string")
          ? yield* documents.resolve(input, deliveryNeeds(model, projectId))
          : input
        const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (!request.stream) {
          const { completion, served } = yield* router.complete(model, request, meter.log)
          meter.served = served
          meter.usage = completion.usage
          return { _tag: "Json", body: encoding.json(completion, { model: served.model, created }) } satisfies ChatResult<Body, Chunk>
        }
        meter.streamed = true
        meter.estimatePromptTokens = () => estimatePromptTokens(request)
        const chunks = encodedEvents(router.stream(model, request, meter.log), (served) => encoding.stream(served, created), model.id, {
          onServed: (servedModel, provider, upstreamModel) => {
            meter.served = { model: servedModel, provider, upstreamModel }
            // Each attempt starts clean, like the chunks the client sees.
            meter.generatedBytes = 0
          },
          onGenerated: (bytes) => {
            meter.generatedBytes += bytes
          },
          onUsage: (usage) => {
            meter.usage = usage
          },
          onFirstChunk: (at) => {
            meter.firstTokenAt = at
          }
        })
        // Until its first chunk a stream is bounded by the routing deadline, like a plain call.
        const bounded = withStreamTimeouts(chunks, {
          firstMs: deadlineMs,
          onFirst: () =>
            new GatewayError({
              reason: new UpstreamFailure({
                message: `No provider started answering for model '${model.id}' within ${deadlineMs} ms.`,
                provider: "gateway",
                kind: "timeout"
              })
            })
        })
        return { _tag: "Stream", chunks: bounded } satisfies ChatResult<Body, Chunk>
      }, spans.span("ChatCompletions.run"))
      const run = (request: ChatRequest, meter: RequestMeter, projectId: string) =>
        runWith(request, meter, projectId, chatEncoding(request.includeUsage))

      return ChatCompletions.of({ run, runWith })
    })
  )
}
