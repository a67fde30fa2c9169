import type { ChatRequest, ReasoningEffort } from "../../Domain/ChatRequest.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import { geminiSchema } from "./GeminiSchema.ts"
import type { GeminiGenerationConfig } from "./GeminiWire.ts"

/**
 * `reasoning_effort` -> thinking budget in tokens. These are the budgets Google's own
 * chat-completions compatibility layer uses for low / medium / high; `minimal` takes the
 * smallest budget every thinking model accepts. A budget (not `thinkingLevel`) is sent because
 * 2.5 models take only budgets and later models still accept them, so no model-name checks
 * are needed.
 * @see https://ai.google.dev/gemini-api/docs/openai#thinking
 * @see https://ai.google.dev/gemini-api/docs/thinking#set-budget
 */
export const thinkingBudgets: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576
}

/**
 * Sampling and output settings -> `generationConfig`. Only what the client set is sent, so
 * Gemini's per-model defaults stay in force otherwise.
 * @see https://ai.google.dev/api/generate-content#v1beta.GenerationConfig
 */
export const geminiGenerationConfig = (request: ChatRequest, target: ChatTarget): GeminiGenerationConfig => {
  const config: GeminiGenerationConfig = {}
  if (request.temperature !== undefined) config.temperature = request.temperature
  if (request.top_p !== undefined) config.topP = request.top_p
  if (request.top_k !== undefined) config.topK = request.top_k
  if (request.max_completion_tokens !== undefined) config.maxOutputTokens = request.max_completion_tokens
  if (request.stop !== undefined) config.stopSequences = request.stop
  if (request.n !== 1) config.candidateCount = request.n
  if (request.seed !== undefined) config.seed = request.seed
  if (request.presence_penalty !== undefined) config.presencePenalty = request.presence_penalty
  if (request.frequency_penalty !== undefined) config.frequencyPenalty = request.frequency_penalty
  if (request.logprobs === true) {
    config.responseLogprobs = true
    if (request.top_logprobs !== undefined && request.top_logprobs > 0) config.logprobs = request.top_logprobs
  }
  // @see https://ai.google.dev/gemini-api/docs/structured-output
  const format = request.response_format
  if (format?.type === "json_object") config.responseMimeType = "application/json"
  if (format?.type === "json_schema") {
    config.responseMimeType = "application/json"
    config.responseSchema = geminiSchema(format.json_schema.schema, "response_format.json_schema.schema", { propertyOrdering: true })
  }
  // Spec 4.1: ignored by models that do not reason; Gemini rejects thinkingConfig for them.
  if (request.reasoning_effort !== undefined && target.model.capabilities.reasoning) {
    config.thinkingConfig = { thinkingBudget: thinkingBudgets[request.reasoning_effort], includeThoughts: true }
  }
  return config
}
