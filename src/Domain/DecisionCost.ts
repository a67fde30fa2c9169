import { estimatePromptTokens } from "./ChatTokenEstimate.ts"
import { labelsFor } from "./DecisionAnswer.ts"
import { decisionMethodOf } from "./DecisionModel.ts"
import { decisionChatRequest, decisionPrefix } from "./DecisionPrompt.ts"
import type { DecisionRequest } from "./DecisionRequest.ts"
import type { DecisionSettings } from "./DecisionSettings.ts"
import type { ModelConfig } from "./GatewayConfig.ts"
import { costNanoUsd } from "./Pricing.ts"

/** Upstream calls per question: one with token probabilities, `samples` without. */
export const callsPerQuestion = (model: ModelConfig, settings: DecisionSettings): number =>
  decisionMethodOf(model) === "logprobs" ? 1 : settings.samples

/**
 * The most a decisions request can cost, in integer nano-dollars, for the billing step to
 * reserve before any upstream call: every call's whole prompt (instructions, state, question,
 * the fields it names; estimated as `ChatTokenEstimate` does) billed as fresh input, at the
 * cache-write price where that is higher, since the cache may miss every time. Output tokens
 * are not billed (spec 8).
 */
export const decisionWorstCaseNanoUsd = (request: DecisionRequest, model: ModelConfig, settings: DecisionSettings): number => {
  const promptTokens = decisionPromptTokens(request, model, settings)
  const pricing = model.pricing
  const writeCostsMore = (pricing.cache_write_per_mtok ?? 0) > (pricing.input_per_mtok ?? 0)
  return costNanoUsd(pricing, { promptTokens, completionTokens: 0, ...(writeCostsMore ? { cacheWriteTokens: promptTokens } : {}) })
}

/** The prompt tokens of every upstream call of a decisions request, estimated as `ChatTokenEstimate` does. */
export const decisionPromptTokens = (request: DecisionRequest, model: ModelConfig, settings: DecisionSettings): number => {
  const prefix = decisionPrefix(request.stateText)
  const call = { method: decisionMethodOf(model), reasoning: model.capabilities.reasoning }
  const perQuestion = callsPerQuestion(model, settings)
  let promptTokens = 0
  for (const { question } of request.questions) {
    promptTokens += perQuestion * estimatePromptTokens(decisionChatRequest(request, prefix, question, labelsFor(question), call))
  }
  return promptTokens
}
