import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { dropped, implicit, type ProviderFields, refused, sentAs } from "../../Domain/TranslationReport.ts"

/**
 * What the Anthropic codec (AnthropicRequest.ts) does with each neutral field: the capability
 * data behind the translation report and the generated tables of docs/GUIDE.md. A test sends
 * every field through the codec and checks it against this table.
 * @see https://platform.claude.com/docs/en/api/messages/create
 */
export const anthropicFields = (model: ModelConfig): ProviderFields => ({
  fields: {
    max_completion_tokens: sentAs("max_tokens"),
    temperature: sentAs("temperature"),
    top_p: sentAs("top_p"),
    top_k: sentAs("top_k"),
    stop: sentAs("stop_sequences"),
    // Best effort by spec 4.1, and Anthropic has no seed.
    seed: dropped,
    presence_penalty: refused,
    frequency_penalty: refused,
    n: refused,
    response_format: sentAs("output_config.format"),
    tools: sentAs("tools"),
    tool_choice: sentAs("tool_choice"),
    parallel_tool_calls: sentAs("tool_choice.disable_parallel_tool_use"),
    reasoning_effort: model.capabilities.reasoning ? sentAs("thinking.budget_tokens") : dropped,
    modalities: implicit,
    logprobs: refused,
    top_logprobs: refused,
    logit_bias: refused,
    // Anthropic's metadata holds only `user_id`.
    metadata: dropped,
    user: sentAs("metadata.user_id")
  },
  extra: "advisory-dropped"
})
