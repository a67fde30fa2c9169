import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { dropped, type FieldFate, type ProviderFields, refused, type ReportedField, sentAs } from "../../Domain/TranslationReport.ts"
import type { ProviderProfile } from "../OpenAiCompatible/Profiles.ts"

/**
 * What the OpenAI codec (OpenAiRequest.ts) does with each neutral field for one server profile:
 * the capability data behind the translation report and docs/GUIDE.md. Fields a profile lists
 * as unsupported are refused; `top_k` reaches only servers that sample with it.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const openAiFields = (profile: ProviderProfile, model: ModelConfig): ProviderFields => {
  const same = (field: ReportedField): FieldFate => (profile.unsupported.includes(field) ? refused : sentAs(field))
  return {
    fields: {
      max_completion_tokens: sentAs(profile.maxTokensField),
      temperature: same("temperature"),
      top_p: same("top_p"),
      top_k: profile.topK ? sentAs("top_k") : dropped,
      stop: same("stop"),
      seed: same("seed"),
      presence_penalty: same("presence_penalty"),
      frequency_penalty: same("frequency_penalty"),
      n: same("n"),
      response_format: same("response_format"),
      tools: same("tools"),
      tool_choice: same("tool_choice"),
      parallel_tool_calls: same("parallel_tool_calls"),
      // Spec 4.1: ignored by models that do not reason.
      reasoning_effort: model.capabilities.reasoning ? same("reasoning_effort") : dropped,
      modalities: same("modalities"),
      logprobs: same("logprobs"),
      top_logprobs: same("top_logprobs"),
      logit_bias: same("logit_bias"),
      // Not in the codec's copy list: OpenAI's chat API stores metadata only with `store`.
      metadata: dropped,
      user: same("user")
    },
    extra: "sent"
  }
}
