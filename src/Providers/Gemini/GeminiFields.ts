import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { dropped, implicit, type ProviderFields, refused, sentAs } from "../../Domain/TranslationReport.ts"

/**
 * What the Gemini codec (GeminiRequest.ts, GeminiGenerationConfig.ts, GeminiTools.ts) does with
 * each neutral field: the capability data behind the translation report and docs/GUIDE.md.
 * @see https://ai.google.dev/api/generate-content#v1beta.GenerationConfig
 */
export const geminiFields = (model: ModelConfig): ProviderFields => ({
  fields: {
    max_completion_tokens: sentAs("generationConfig.maxOutputTokens"),
    temperature: sentAs("generationConfig.temperature"),
    top_p: sentAs("generationConfig.topP"),
    top_k: sentAs("generationConfig.topK"),
    stop: sentAs("generationConfig.stopSequences"),
    seed: sentAs("generationConfig.seed"),
    presence_penalty: sentAs("generationConfig.presencePenalty"),
    frequency_penalty: sentAs("generationConfig.frequencyPenalty"),
    n: sentAs("generationConfig.candidateCount"),
    response_format: sentAs("generationConfig.responseSchema"),
    tools: sentAs("tools.functionDeclarations"),
    tool_choice: sentAs("toolConfig.functionCallingConfig"),
    // Gemini calls tools in parallel by itself and cannot be told not to (`false` is refused).
    parallel_tool_calls: refused,
    reasoning_effort: model.capabilities.reasoning ? sentAs("generationConfig.thinkingConfig.thinkingBudget") : dropped,
    modalities: implicit,
    logprobs: sentAs("generationConfig.responseLogprobs"),
    top_logprobs: sentAs("generationConfig.logprobs"),
    logit_bias: refused,
    metadata: dropped,
    user: dropped
  },
  extra: "advisory-dropped"
})
