import { dropped, implicit, type ProviderFields } from "../../Domain/TranslationReport.ts"

/**
 * What the mock (MockReply.ts) does with each neutral field: it honours the number of choices
 * and the token cap, and ignores the rest, so the translation report names them as dropped.
 */
export const mockFields: ProviderFields = {
  fields: {
    max_completion_tokens: implicit,
    temperature: dropped,
    top_p: dropped,
    top_k: dropped,
    stop: dropped,
    seed: dropped,
    presence_penalty: dropped,
    frequency_penalty: dropped,
    n: implicit,
    response_format: dropped,
    tools: dropped,
    tool_choice: dropped,
    parallel_tool_calls: dropped,
    reasoning_effort: dropped,
    modalities: implicit,
    logprobs: dropped,
    top_logprobs: dropped,
    logit_bias: dropped,
    metadata: dropped,
    user: dropped
  },
  extra: "advisory-dropped"
}
