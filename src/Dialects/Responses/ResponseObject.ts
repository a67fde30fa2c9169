import type { ChatCompletion, FinishReason } from "../../Domain/ChatCompletion.ts"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import * as Ids from "../../Domain/Ids.ts"
import type { ReasoningDetail } from "../../Domain/ReasoningDetail.ts"
import { sealReasoning } from "./ReasoningContent.ts"
import { emptyUsage, normaliseUsage, type Usage } from "../../Domain/Usage.ts"
import type { ResponsesCreate } from "./ResponsesRequest.ts"
import { echoFormat, echoTools } from "./ResponsesTools.ts"

/**
 * The Responses API's `response` object, built from a neutral completion: the request's settings
 * repeated as the API repeats them, the output items, the status and the usage.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed"

export interface ResponseMeta {
  readonly id: string
  readonly createdAt: number
  /** The catalogue id of the model that served (a fallback's id when routing fell back). */
  readonly model: string
}

export interface ResponseUsageWire {
  readonly input_tokens: number
  readonly input_tokens_details: { readonly cached_tokens: number; readonly cache_write_tokens: number }
  readonly output_tokens: number
  readonly output_tokens_details: { readonly reasoning_tokens: number }
  readonly total_tokens: number
}

/** Usage in the Responses shape: input includes cached tokens, output includes reasoning tokens. */
export const usageToResponses = (reported: Usage): ResponseUsageWire => {
  const { usage } = normaliseUsage(reported)
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0, cache_write_tokens: usage.cacheWriteTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens
  }
}

/** A finish reason as the response's status and `incomplete_details`. */
export const statusOf = (finish: FinishReason): { readonly status: ResponseStatus; readonly incomplete_details: { readonly reason: string } | null } => {
  switch (finish) {
    case "length":
      return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    case "content_filter":
      return { status: "incomplete", incomplete_details: { reason: "content_filter" } }
    default:
      return { status: "completed", incomplete_details: null }
  }
}

/** Everything of the response object but its status, output, usage and error. */
export const responseEnvelope = (create: ResponsesCreate, meta: ResponseMeta) => {
  const s = create.settings
  return {
    id: meta.id,
    object: "response" as const,
    created_at: meta.createdAt,
    model: meta.model,
    background: false,
    frequency_penalty: 0,
    instructions: s.instructions ?? null,
    max_output_tokens: s.max_output_tokens ?? null,
    max_tool_calls: s.max_tool_calls ?? null,
    metadata: s.metadata ?? {},
    parallel_tool_calls: s.parallel_tool_calls ?? true,
    previous_response_id: s.previous_response_id ?? null,
    presence_penalty: 0,
    prompt_cache_key: s.prompt_cache_key ?? null,
    reasoning: { effort: s.reasoning?.effort ?? null, summary: s.reasoning?.summary ?? s.reasoning?.generate_summary ?? null },
    safety_identifier: s.safety_identifier ?? null,
    service_tier: s.service_tier ?? "default",
    store: create.store,
    temperature: s.temperature ?? 1,
    text: { format: echoFormat(create.format), verbosity: s.text?.verbosity ?? "medium" },
    tool_choice: s.tool_choice ?? "auto",
    tools: echoTools(create.tools),
    top_logprobs: s.top_logprobs ?? 0,
    top_p: s.top_p ?? 1,
    truncation: s.truncation ?? "disabled",
    ...(s.user == null ? {} : { user: s.user })
  }
}

export type ResponseEnvelope = ReturnType<typeof responseEnvelope>

export interface ResponseObject extends ResponseEnvelope {
  readonly status: ResponseStatus
  readonly completed_at: number | null
  readonly error: { readonly code: string; readonly message: string } | null
  readonly incomplete_details: { readonly reason: string } | null
  readonly output: ReadonlyArray<JsonObject>
  readonly usage: ResponseUsageWire
}

export const messageItem = (id: string, status: "in_progress" | "completed" | "incomplete", content: ReadonlyArray<JsonObject>): JsonObject => ({
  id,
  type: "message",
  status,
  role: "assistant",
  content
})

export const outputTextPart = (text: string): JsonObject => ({ type: "output_text", text, annotations: [], logprobs: [] })

export const functionCallItem = (id: string, call: { readonly id: string; readonly name: string; readonly arguments: string }, status: "in_progress" | "completed"): JsonObject => ({
  id,
  type: "function_call",
  status,
  arguments: call.arguments,
  call_id: call.id,
  name: call.name
})

export const reasoningItem = (id: string, text: string, details: ReadonlyArray<ReasoningDetail> = []): JsonObject => ({
  id,
  type: "reasoning",
  summary: text === "" ? [] : [{ type: "summary_text", text }],
  ...(details.length === 0 ? {} : { encrypted_content: sealReasoning(details) })
})

/** A completion's one choice as output items: reasoning, then the message, then its function calls. */
export const outputOf = (completion: ChatCompletion): Array<JsonObject> => {
  const choice = completion.choices[0]
  if (choice === undefined) return []
  const message = choice.message
  const { status } = statusOf(choice.finish_reason)
  const out: Array<JsonObject> = []
  const details = message.reasoning_details ?? []
  if ((message.reasoning_content !== undefined && message.reasoning_content !== "") || details.length > 0) {
    out.push(reasoningItem(Ids.outputItemId("rs"), message.reasoning_content ?? "", details))
  }
  const content: Array<JsonObject> = []
  if (message.content !== null && message.content !== "") content.push(outputTextPart(message.content))
  if (message.refusal !== null && message.refusal !== "") content.push({ type: "refusal", refusal: message.refusal })
  if (content.length > 0) out.push(messageItem(Ids.outputItemId("msg"), status === "incomplete" ? "incomplete" : "completed", content))
  for (const call of message.tool_calls ?? []) {
    out.push(functionCallItem(Ids.outputItemId("fc"), { id: call.id, name: call.function.name, arguments: call.function.arguments }, "completed"))
  }
  return out
}

/** The whole response object of a non-streamed call. */
export const responseOf = (create: ResponsesCreate, meta: ResponseMeta, completion: ChatCompletion, completedAt: number): ResponseObject => {
  const choice = completion.choices[0]
  const { status, incomplete_details } = statusOf(choice?.finish_reason ?? "stop")
  const output = outputOf(completion)
  return {
    ...responseEnvelope(create, meta),
    status,
    completed_at: status === "completed" ? completedAt : null,
    error: null,
    incomplete_details,
    output,
    usage: usageToResponses(completion.usage)
  }
}

/**
 * An upstream's own response object (a request that went natively to OpenAI's Responses API)
 * under the gateway's id, creation time and the catalogue's model. What the upstream produced
 * (status, output, usage, error, completion time, service tier) is kept; the settings the client sent are repeated as the
 * gateway decoded them, since the upstream saw a rewritten request (no previous response, nothing
 * stored).
 */
export const nativeResponseOf = (
  create: ResponsesCreate,
  meta: ResponseMeta,
  native: Readonly<Record<string, unknown>>,
  now: number
): ResponseObject => {
  const envelope = responseEnvelope(create, meta)
  const { service_tier: _tier, background: _background, ...echo } = envelope
  const { user: _user, ...upstream } = native
  // What both documents require and an upstream may leave out.
  const rest: Record<string, unknown> = {
    service_tier: envelope.service_tier,
    background: false,
    error: null,
    incomplete_details: null,
    completed_at: upstream["status"] === "completed" ? now : null,
    ...upstream
  }
  const usage = rest["usage"] as Record<string, unknown> | null | undefined
  const input = usage?.["input_tokens_details"] as Record<string, unknown> | undefined
  return {
    ...rest,
    ...echo,
    output: Array.isArray(rest["output"]) ? rest["output"].map(nativeItem) : [],
    // While in progress the upstream sends null; the documents want an object (see the encoder).
    usage: usage === null || usage === undefined
      ? usageToResponses(emptyUsage)
      : { ...usage, input_tokens_details: { cache_write_tokens: 0, ...input } }
  } as unknown as ResponseObject
}

/** An upstream output item with the fields OpenAI's own schema requires and its examples leave out. */
export const nativeItem = (item: unknown): unknown => {
  if (item === null || typeof item !== "object" || (item as JsonObject)["type"] !== "message") return item
  const message = item as JsonObject
  return Array.isArray(message["content"]) ? { ...message, content: message["content"].map(nativePart) } : message
}

/** An `output_text` part always has its `logprobs` (empty when none were asked for). */
export const nativePart = (part: unknown): unknown =>
  part !== null && typeof part === "object" && (part as JsonObject)["type"] === "output_text" && !("logprobs" in part)
    ? { ...part, logprobs: [] }
    : part
