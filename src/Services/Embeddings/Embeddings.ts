import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { checkEmbeddingRequest } from "../../Domain/EmbeddingGate.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import { embeddingsToWire } from "../../Domain/EmbeddingResultWire.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { acceptsTokens } from "../Routing/EmbeddingRoutes.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { ProviderRegistry } from "../Routing/ProviderRegistry.ts"
import { ProviderRouter } from "../Routing/ProviderRouter.ts"
import type { AttemptLog } from "../Routing/RoutedAttempts.ts"
import type { Outcome } from "../Usage/RequestOutcome.ts"

export type EmbeddingsBody = ReturnType<typeof embeddingsToWire>

/**
 * The embeddings use case: catalogue lookup, the model's gate before any upstream call,
 * routing, and the list object of spec 2.7 in the format the client asked for. HTTP concerns
 * stay in the route.
 */
export class Embeddings extends Context.Service<
  Embeddings,
  { readonly run: (request: EmbeddingRequest, log: AttemptLog) => Effect.Effect<Outcome<EmbeddingsBody>, GatewayError> }
>()("gateway/Embeddings") {
  static readonly layer = Layer.effect(
    Embeddings,
    Effect.gen(function* () {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const registry = yield* ProviderRegistry
      const spans = yield* optionalSpans

      const run = Effect.fnUntraced(function* (request: EmbeddingRequest, log: AttemptLog) {
        const model = (yield* catalog.require(request.model, "embedding")).config
        const violation = checkEmbeddingRequest(request, model, { acceptsTokens: acceptsTokens(model, registry.embedding) })
        if (violation !== undefined) return yield* violation
        const { result, served } = yield* router.embed(model, request, log)
        return {
          body: embeddingsToWire(result, { model: served.model, format: request.encodingFormat }),
          outcome: {
            _tag: "Answered",
            served,
            usage: { promptTokens: result.promptTokens, completionTokens: 0 },
            units: 0,
            fixedCostNanoUsd: undefined,
            translation: undefined
          }
        } satisfies Outcome<EmbeddingsBody>
      }, spans.span("Embeddings.run"))

      return Embeddings.of({ run })
    })
  )
}
