import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { ChatProvider } from "../../Providers/ChatProvider.ts"
import type { EmbeddingProvider } from "../../Providers/EmbeddingProvider.ts"
import type { ImageProvider } from "../../Providers/ImageProvider.ts"
import { makeGeminiImageProvider } from "../../Providers/Gemini/GeminiImageAdapter.ts"
import { makeOpenAiImageProvider } from "../../Providers/OpenAi/OpenAiImageAdapter.ts"
import { makeAnthropicProvider } from "../../Providers/Anthropic/AnthropicAdapter.ts"
import { makeGeminiProvider } from "../../Providers/Gemini/GeminiAdapter.ts"
import { makeMockEmbeddingProvider, makeMockProvider } from "../../Providers/Mock/MockAdapter.ts"
import { makeGeminiEmbeddingProvider } from "../../Providers/Gemini/GeminiEmbeddingAdapter.ts"
import { makeOpenAiProvider } from "../../Providers/OpenAi/OpenAiAdapter.ts"
import { makeOpenAiEmbeddingProvider } from "../../Providers/OpenAi/OpenAiEmbeddingAdapter.ts"
import { makeGeminiTranscriptionProvider } from "../../Providers/Gemini/GeminiTranscriptionAdapter.ts"
import { makeOpenAiTranscriptionProvider } from "../../Providers/OpenAi/OpenAiTranscriptionAdapter.ts"
import type { TranscriptionProvider } from "../../Providers/TranscriptionProvider.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

/** The chat adapter of one configured provider, by its kind. */
export const makeChatProvider = (config: ProviderConfig) => {
  switch (config.kind) {
    case "openai":
    case "openai-compatible":
      return makeOpenAiProvider(config)
    case "anthropic":
      return makeAnthropicProvider(config)
    case "gemini":
      return makeGeminiProvider(config)
    case "mock":
      return makeMockProvider(config)
  }
}

/** The embeddings adapter of one configured provider, by its kind; Anthropic has no embeddings API. */
export const makeEmbeddingProvider = (config: ProviderConfig) => {
  switch (config.kind) {
    case "openai":
    case "openai-compatible":
      return makeOpenAiEmbeddingProvider(config)
    case "gemini":
      return makeGeminiEmbeddingProvider(config)
    case "mock":
      return makeMockEmbeddingProvider(config)
    case "anthropic":
    case "mock":
      return Effect.succeed(undefined)
  }
}

/** The image adapter of one configured provider, by its kind; Anthropic and the mock have no image API. */
export const makeImageProvider = (config: ProviderConfig) => {
  switch (config.kind) {
    case "openai":
    case "openai-compatible":
      return makeOpenAiImageProvider(config)
    case "gemini":
      return makeGeminiImageProvider(config)
    case "anthropic":
    case "mock":
      return Effect.succeed(undefined)
  }
}

/** The speech-to-text adapter of one configured provider, by its kind; Anthropic and the mock have no audio API. */
export const makeTranscriptionProvider = (config: ProviderConfig) => {
  switch (config.kind) {
    case "openai":
    case "openai-compatible":
      return makeOpenAiTranscriptionProvider(config)
    case "gemini":
      return makeGeminiTranscriptionProvider(config)
    case "anthropic":
    case "mock":
      return Effect.succeed(undefined)
  }
}

/**
 * Every configured provider's chat adapter, and an embeddings or image adapter for each provider
 * an embedding or image model is deployed on, built once at start-up with their own connection pools.
 */
export class ProviderRegistry extends Context.Service<
  ProviderRegistry,
  {
    readonly chat: (providerId: string) => ChatProvider | undefined
    readonly embedding: (providerId: string) => EmbeddingProvider | undefined
    readonly image: (providerId: string) => ImageProvider | undefined
    readonly transcription: (providerId: string) => TranscriptionProvider | undefined
  }
>()("gateway/ProviderRegistry") {
  static readonly layer = Layer.effect(
    ProviderRegistry,
    Effect.gen(function* () {
      const { config } = yield* GatewayConfigFile
      const chat = new Map<string, ChatProvider>()
      for (const provider of config.providers) {
        const adapter = yield* makeChatProvider(provider)
        if (adapter !== undefined) chat.set(provider.id, adapter)
      }
      const embedded = new Set(config.models.filter((m) => m.kind === "embedding").flatMap((m) => m.deployments.map((d) => d.provider)))
      const embedding = new Map<string, EmbeddingProvider>()
      for (const provider of config.providers) {
        if (!embedded.has(provider.id)) continue
        const adapter = yield* makeEmbeddingProvider(provider)
        if (adapter !== undefined) embedding.set(provider.id, adapter)
      }
      const drawing = new Set(config.models.filter((m) => m.kind === "image").flatMap((m) => m.deployments.map((d) => d.provider)))
      const image = new Map<string, ImageProvider>()
      for (const provider of config.providers) {
        if (!drawing.has(provider.id)) continue
        const adapter = yield* makeImageProvider(provider)
        if (adapter !== undefined) image.set(provider.id, adapter)
      }
      const transcribed = new Set(config.models.filter((m) => m.kind === "transcription").flatMap((m) => m.deployments.map((d) => d.provider)))
      const transcription = new Map<string, TranscriptionProvider>()
      for (const provider of config.providers) {
        if (!transcribed.has(provider.id)) continue
        const adapter = yield* makeTranscriptionProvider(provider)
        if (adapter !== undefined) transcription.set(provider.id, adapter)
      }
      return ProviderRegistry.of({
        chat: (id) => chat.get(id),
        embedding: (id) => embedding.get(id),
        image: (id) => image.get(id),
        transcription: (id) => transcription.get(id)
      })
    })
  )
  /** For tests: providers given directly. */
  static readonly fromProviders = (
    providers: ReadonlyArray<ChatProvider>,
    embedders: ReadonlyArray<EmbeddingProvider> = [],
    others: { readonly images?: ReadonlyArray<ImageProvider>; readonly transcribers?: ReadonlyArray<TranscriptionProvider> } = {}
  ) =>
    Layer.succeed(
      ProviderRegistry,
      ProviderRegistry.of({
        chat: (id) => providers.find((p) => p.id === id),
        embedding: (id) => embedders.find((p) => p.id === id),
        image: (id) => others.images?.find((p) => p.id === id),
        transcription: (id) => others.transcribers?.find((p) => p.id === id)
      })
    )
}
