import { advisoryFields, type ChatRequest, type ReasoningEffort } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import { nativeDocumentTypes, withDocumentsDelivered } from "../DocumentDelivery.ts"
import { anthropicConversation } from "./AnthropicMessages.ts"
import { anthropicTools, forcesToolUse } from "./AnthropicTools.ts"

/**
 * Anthropic requires `max_tokens`. When the client sets no cap the catalogue's
 * `max_output_tokens` for the model is used, else this.
 */
export const defaultMaxTokens = 4096

/**
 * Thinking budgets per `reasoning_effort`; 1024 is Anthropic's minimum budget.
 * @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 */
export const thinkingBudgets: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384
}
const minimumBudget = 1024

const refuse = (field: string, model: string, what = `does not support '${field}'`) =>
  GatewayError.invalid(`The model '${model}' ${what}.`, field, "unsupported_parameter")

/**
 * Fields of the common convention Anthropic has no counterpart for are refused by name, never
 * dropped; neutral values (n 1, penalties 0) pass. `seed` is best-effort by spec 4.1 and
 * Anthropic has none, so it is ignored, like the advisory fields (`store`, `metadata`, ...).
 */
const checkUnsupported = (request: ChatRequest, model: string): void => {
  if (request.n !== 1) throw refuse("n", model, "returns a single choice; 'n' must be 1")
  if (request.logprobs === true) throw refuse("logprobs", model, "does not return log probabilities")
  if (request.top_logprobs !== undefined) throw refuse("top_logprobs", model)
  if (request.logit_bias !== undefined) throw refuse("logit_bias", model)
  if ((request.presence_penalty ?? 0) !== 0) throw refuse("presence_penalty", model)
  if ((request.frequency_penalty ?? 0) !== 0) throw refuse("frequency_penalty", model)
  if (request.response_format?.type === "json_object") {
    throw refuse("response_format", model, "does not support 'json_object'; use 'json_schema' with a schema")
  }
  for (const key of Object.keys(request.extra)) if (!advisoryFields.has(key)) throw refuse(key, model)
}

/**
 * Anthropic samples with temperature 0..1; a higher value is refused rather than clamped, so
 * the client learns its request means something else here.
 * @see https://platform.claude.com/docs/en/api/messages/create (temperature)
 */
const checkTemperature = (request: ChatRequest, model: string): void => {
  if (request.temperature !== undefined && request.temperature > 1) {
    throw GatewayError.invalid(
      `'temperature' must be between 0 and 1 for the model '${model}' (got ${request.temperature}).`,
      "temperature",
      "unsupported_value"
    )
  }
}

interface OutputPlan {
  readonly max_tokens: number
  readonly thinking?: { readonly type: "enabled"; readonly budget_tokens: number }
}

/**
 * `reasoning_effort` -> a thinking budget, only for models the catalogue marks as reasoning
 * (spec 4.1: ignored by the others). Thinking tokens count against `max_tokens`, which must
 * exceed the budget; thinking also rules out forced tool use, temperature changes and a
 * `top_p` below 0.95, so those combinations are refused by field.
 * @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 */
const outputPlan = (request: ChatRequest, target: ChatTarget): OutputPlan => {
  const model = target.model
  const explicit = request.max_completion_tokens
  const cap = explicit ?? model.capabilities.max_output_tokens ?? defaultMaxTokens
  const effort = request.reasoning_effort
  if (effort === undefined || !model.capabilities.reasoning) return { max_tokens: cap }
  const wanted = thinkingBudgets[effort]
  if (forcesToolUse(request)) {
    throw refuse("tool_choice", model.id, "cannot force a tool call while reasoning; drop 'reasoning_effort' or use 'auto'")
  }
  if (request.temperature !== undefined && request.temperature !== 1) {
    throw refuse("temperature", model.id, "only accepts 'temperature' 1 while reasoning")
  }
  if (request.top_p !== undefined && request.top_p < 0.95) {
    throw refuse("top_p", model.id, "only accepts 'top_p' from 0.95 to 1 while reasoning")
  }
  if (cap > wanted) return { max_tokens: cap, thinking: { type: "enabled", budget_tokens: wanted } }
  if (explicit !== undefined) {
    throw GatewayError.invalid(
      `'max_completion_tokens' must be greater than ${wanted}, the reasoning budget for reasoning_effort '${effort}'.`,
      "max_completion_tokens"
    )
  }
  // The catalogue's own output limit is below the budget: think as much as the limit allows.
  if (cap - 1 < minimumBudget) throw refuse("reasoning_effort", model.id, "has too small an output limit for reasoning")
  return { max_tokens: cap, thinking: { type: "enabled", budget_tokens: cap - 1 } }
}

/**
 * The Messages API body. Only fields the client set are sent; `stop` is `stop_sequences`,
 * `json_schema` is native structured output (generally available, no beta header), and the
 * end-user id travels as `metadata.user_id`.
 * @see https://platform.claude.com/docs/en/api/messages/create
 * @see https://platform.claude.com/docs/en/build-with-claude/structured-outputs
 */
export const anthropicRequestBody = (input: ChatRequest, target: ChatTarget, stream: boolean): Record<string, unknown> => {
  const request = withDocumentsDelivered(input, nativeDocumentTypes.anthropic, target.model.capabilities.vision)
  const model = target.model.id
  checkUnsupported(request, model)
  checkTemperature(request, model)
  const conversation = anthropicConversation(request.messages, request.sharedPrefix)
  const plan = outputPlan(request, target)
  const format = request.response_format
  return {
    model: target.upstreamModel,
    max_tokens: plan.max_tokens,
    ...(conversation.system.length === 0 ? {} : { system: conversation.system }),
    messages: conversation.messages,
    ...anthropicTools(request),
    ...(plan.thinking === undefined ? {} : { thinking: plan.thinking }),
    ...(request.stop === undefined ? {} : { stop_sequences: request.stop }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.top_p === undefined ? {} : { top_p: request.top_p }),
    ...(request.top_k === undefined ? {} : { top_k: request.top_k }),
    ...(format?.type === "json_schema" ? { output_config: { format: { type: "json_schema", schema: format.json_schema.schema } } } : {}),
    ...(request.user === undefined ? {} : { metadata: { user_id: request.user } }),
    ...(stream ? { stream: true } : {})
  }
}
