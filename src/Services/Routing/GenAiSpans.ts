import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import type { ProviderConfig } from "../../Domain/GatewayConfig.ts"
import type { Usage } from "../../Domain/Usage.ts"
import type { Candidate } from "./RoutePlanner.ts"

/**
 * Attributes of the OpenTelemetry GenAI semantic conventions on every provider attempt span,
 * beside the gateway's own: the operation, the provider's well-known name, the model asked
 * for and the one that answered, token usage and finish reasons.
 */

export type GenAiOperation = "chat" | "embeddings" | "generate_content" | "transcription"

// The conventions' names for the providers the gateway speaks to; an OpenAI-compatible profile
// names its vendor where the conventions list it, any other keeps its configured id.
const profileNames: Record<string, string> = { groq: "groq", mistral: "mistral_ai", deepseek: "deepseek", perplexity: "perplexity", xai: "x_ai" }

export const genAiProviderName = (provider: ProviderConfig): string => {
  switch (provider.kind) {
    case "openai":
      return "openai"
    case "anthropic":
      return "anthropic"
    case "gemini":
      return "gcp.gemini"
    case "openai-compatible":
      return (provider.profile === undefined ? undefined : profileNames[provider.profile]) ?? provider.id
    case "mock":
      return provider.id
  }
}

/** Configured provider id to its GenAI name, looked up once per attempt. */
export const genAiProviderNames = (providers: ReadonlyArray<ProviderConfig>): ((id: string) => string) => {
  const names = new Map(providers.map((p) => [p.id, genAiProviderName(p)]))
  return (id) => names.get(id) ?? id
}

export const attemptAttributes = (
  operation: GenAiOperation,
  candidate: Candidate,
  providerName: (id: string) => string,
  attempt: number
): Record<string, unknown> => ({
  "gateway.provider": candidate.deployment.provider,
  "gateway.model": candidate.model.id,
  "gateway.attempt": attempt,
  "gen_ai.operation.name": operation,
  "gen_ai.provider.name": providerName(candidate.deployment.provider),
  "gen_ai.request.model": candidate.deployment.model
})

export const usageAttributes = (usage: Usage): Record<string, unknown> => ({
  "gen_ai.usage.input_tokens": usage.promptTokens,
  "gen_ai.usage.output_tokens": usage.completionTokens
})

/**
 * What a non-streamed chat answer adds. Adapters keep no upstream model string, so the
 * response model is the deployment's model that answered.
 */
export const completionAttributes = (completion: ChatCompletion, upstreamModel: string): Record<string, unknown> => ({
  "gen_ai.response.model": upstreamModel,
  "gen_ai.response.finish_reasons": completion.choices.map((c) => c.finish_reason),
  ...usageAttributes(completion.usage)
})
