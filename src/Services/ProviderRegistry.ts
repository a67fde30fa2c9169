import { Context, Effect, Layer } from "effect"
import type { ProviderConfig } from "../Domain/GatewayConfig.ts"
import type { ChatProvider } from "../Providers/ChatProvider.ts"
import { makeAnthropicProvider } from "../Providers/Anthropic/AnthropicAdapter.ts"
import { makeGeminiProvider } from "../Providers/Gemini/GeminiAdapter.ts"
import { makeOpenAiProvider } from "../Providers/OpenAi/OpenAiAdapter.ts"
import { GatewayConfigFile } from "./GatewayConfigLoader.ts"

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
  }
}

/** Every configured provider's chat adapter, built once at start-up with its own connection pool. */
export class ProviderRegistry extends Context.Service<
  ProviderRegistry,
  { readonly chat: (providerId: string) => ChatProvider | undefined }
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
      return ProviderRegistry.of({ chat: (id) => chat.get(id) })
    })
  )
  /** For tests: providers given directly. */
  static readonly fromProviders = (providers: ReadonlyArray<ChatProvider>) =>
    Layer.succeed(ProviderRegistry, ProviderRegistry.of({ chat: (id) => providers.find((p) => p.id === id) }))
}
