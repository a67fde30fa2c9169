import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { EmbeddingRequest } from "../../Domain/EmbeddingRequest.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { ChatProvider, ChatTarget } from "../ChatProvider.ts"
import type { EmbeddingProvider, EmbeddingTarget } from "../EmbeddingProvider.ts"
import { mockEmbeddings } from "./MockEmbedding.ts"
import { mockCompletion, mockStreamEvents } from "./MockReply.ts"

/**
 * `kind: mock`: answers in-process from the request alone, with no network and no key, through
 * the same router, billing, usage log and dialect encoders as a real provider. Requests of the
 * Responses and Messages dialects are answered from their neutral form, like any provider that
 * does not speak those APIs natively.
 */
export const makeMockProvider = (config: ProviderConfig) =>
  Effect.succeed<ChatProvider>({
    id: config.id,
    complete: (request: ChatRequest, _target: ChatTarget) => Effect.sync(() => mockCompletion(request)),
    stream: (request: ChatRequest, _target: ChatTarget) => Stream.suspend(() => Stream.fromIterable(mockStreamEvents(request)))
  })

export const makeMockEmbeddingProvider = (config: ProviderConfig) =>
  Effect.succeed<EmbeddingProvider>({
    id: config.id,
    acceptsTokens: true,
    embed: (request: EmbeddingRequest, target: EmbeddingTarget) => Effect.sync(() => mockEmbeddings(request, target.model))
  })
