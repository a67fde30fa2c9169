import type { ModelConfig, ProviderConfig } from "../Domain/GatewayConfig.ts"
import type { ProviderFields } from "../Domain/TranslationReport.ts"
import { anthropicFields } from "./Anthropic/AnthropicFields.ts"
import { geminiFields } from "./Gemini/GeminiFields.ts"
import { mockFields } from "./Mock/MockFields.ts"
import { openAiFields } from "./OpenAi/OpenAiFields.ts"
import { profileFor, profiles } from "./OpenAiCompatible/Profiles.ts"

/** The field table of the chat codec a provider of this configuration uses, for one model. */
export const providerFields = (provider: Pick<ProviderConfig, "kind" | "profile">, model: ModelConfig): ProviderFields => {
  switch (provider.kind) {
    case "openai":
      return openAiFields(profiles["openai"]!, model)
    case "openai-compatible":
      return openAiFields(profileFor(provider.profile), model)
    case "anthropic":
      return anthropicFields(model)
    case "gemini":
      return geminiFields(model)
    case "mock":
      return mockFields
  }
}
