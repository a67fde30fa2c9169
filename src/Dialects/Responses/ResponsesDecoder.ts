import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ChatRequest, ReasoningEffort } from "../../Domain/ChatRequest.ts"
import type { DecodedTranslation } from "../../Domain/TranslationReport.ts"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { checkInlineData } from "../../Domain/InlineData.ts"
import { schemaErrorToGateway } from "../../Domain/SchemaErrors.ts"
import { isSealedReasoning } from "./ReasoningContent.ts"
import { checkInputItem, conversationOf } from "./ResponsesInput.ts"
import type { ResponsesOnlyField } from "./ResponsesFields.ts"
import { type ResponsesCall, type ResponsesCreate, ResponsesRequestShell, type ResponsesTranslation } from "./ResponsesRequest.ts"
import { functionTools, responseFormatOf, toolChoiceOf } from "./ResponsesTools.ts"

const shell = Schema.decodeUnknownEffect(ResponsesRequestShell)
const known: ReadonlySet<string> = new Set(Object.keys(ResponsesRequestShell.fields))

/** Runs a translation step that reports client mistakes by throwing a GatewayError. */
const attempt = <A>(f: () => A): Effect.Effect<A, GatewayError> =>
  Effect.try({ try: f, catch: (error) => (error instanceof GatewayError ? error : GatewayError.internal(String(error))) })

/**
 * Decodes and checks a `POST /v1/responses` body, naming the field of every violation. Unknown
 * top-level fields are refused by name: a Responses request is translated field by field, so an
 * unmodelled one could only be dropped.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const decodeResponsesRequest = (body: Record<string, unknown>): Effect.Effect<ResponsesCreate, GatewayError> =>
  Effect.flatMap(Effect.mapError(shell(body), (error) => schemaErrorToGateway(error)), (s) =>
    attempt((): ResponsesCreate => {
      for (const key of Object.keys(body)) {
        if (!known.has(key)) throw GatewayError.invalid(`Unrecognized request argument supplied: '${key}'.`, key, "unknown_parameter")
      }
      if (s.background === true) {
        throw GatewayError.invalid("'background' responses are not supported by this gateway; send the request without it.", "background", "unsupported_parameter")
      }
      if (s.stream_options != null && s.stream !== true) {
        throw GatewayError.invalid("'stream_options' is only allowed when 'stream' is true.", "stream_options")
      }
      const raw = s.input ?? []
      const input = typeof raw === "string"
        ? [{ type: "message", role: "user", content: raw }]
        : raw.map(checkInputItem)
      if (input.length === 0 && s.previous_response_id == null) {
        throw GatewayError.invalid("'input' must hold at least one item.", "input")
      }
      const tools = functionTools(s.tools ?? [])
      return {
        model: s.model,
        stream: s.stream === true,
        input,
        tools,
        toolChoice: s.tool_choice == null ? undefined : toolChoiceOf(s.tool_choice, tools),
        format: responseFormatOf(s.text?.format),
        store: s.store !== false,
        settings: s
      }
    }))

const efforts: Readonly<Record<string, ReasoningEffort | undefined>> = {
  none: undefined,
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  // The chat request's strongest setting; the provider gives what it has.
  xhigh: "high"
}

/**
 * The neutral chat request for a decoded call and its whole conversation (`items`: the
 * previous response's items, then this input, every reference resolved). Throws a GatewayError
 * naming the field when the conversation cannot be translated.
 */
export const chatRequestOf = (create: ResponsesCreate, items: ReadonlyArray<JsonObject>): ResponsesCall => {
  const s = create.settings
  const messages = conversationOf(s.instructions ?? undefined, items)
  if (!messages.some((m) => m.role !== "system")) {
    throw GatewayError.invalid("'input' needs at least one message besides instructions.", "input")
  }
  const bad = checkInlineData(messages)
  if (bad !== undefined) throw bad
  const effort = s.reasoning?.effort == null ? undefined : efforts[s.reasoning.effort]
  const user = s.safety_identifier ?? s.user ?? undefined
  const chat: { -readonly [K in keyof ChatRequest]: ChatRequest[K] } = {
    model: create.model,
    messages,
    stream: create.stream,
    includeUsage: create.stream,
    n: 1,
    extra: {}
  }
  if (s.max_output_tokens != null) chat.max_completion_tokens = s.max_output_tokens
  if (s.temperature != null) chat.temperature = s.temperature
  if (s.top_p != null) chat.top_p = s.top_p
  if (create.tools.length > 0) chat.tools = create.tools
  if (create.toolChoice !== undefined) chat.tool_choice = create.toolChoice
  if (s.parallel_tool_calls != null && create.tools.length > 0) chat.parallel_tool_calls = s.parallel_tool_calls
  if (create.format !== undefined) chat.response_format = create.format
  if (effort !== undefined) chat.reasoning_effort = effort
  if (user !== undefined) chat.user = user
  chat.native = { api: "openai-responses", body: nativeBodyOf(create, items) }
  const translation = translationOf(create, items)
  chat.translation = { origins: originsOf(create), rewritten: translation.rewritten, dropped: translation.dropped }
  return { model: create.model, create, items, chat, translation }
}

/**
 * The request as a provider that speaks the Responses API takes it: the client's settings, with
 * the whole conversation as input (a previous response's items already resolved, so no
 * `previous_response_id`). Reasoning items without `encrypted_content` (made by another
 * provider, or summaries only) cannot be sent back and are left out.
 */
export const nativeBodyOf = (create: ResponsesCreate, items: ReadonlyArray<JsonObject>): JsonObject => {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(create.settings)) if (value !== null && value !== undefined) body[key] = value
  delete body["previous_response_id"]
  body["input"] = items.filter(
    (item) => item["type"] !== "reasoning" || (typeof item["encrypted_content"] === "string" && !isSealedReasoning(item["encrypted_content"]))
  )
  return body
}

/** Which Responses field each neutral field came from, where the names differ. */
const originsOf = (create: ResponsesCreate): DecodedTranslation["origins"] => {
  const s = create.settings
  return {
    max_completion_tokens: "max_output_tokens",
    response_format: "text.format",
    reasoning_effort: "reasoning.effort",
    ...(s.safety_identifier != null ? { user: "safety_identifier" } : {})
  }
}

/**
 * The fields a translated request rewrites or leaves behind (the neutral request has no place
 * for them), decided from the request alone; what a provider then drops is its own codec's say.
 */
export const translationOf = (create: ResponsesCreate, items: ReadonlyArray<JsonObject>): ResponsesTranslation => {
  const s = create.settings
  const rewritten: Array<{ from: string; to: string }> = [{ from: "input", to: "messages" }]
  if (s.instructions != null && s.instructions !== "") rewritten.push({ from: "instructions", to: "messages[0]" })
  // Fields the neutral request holds are reported by the serving provider's field table, under
  // their Responses names (`originsOf`); only what decoding itself changed is listed here.
  if (s.reasoning?.effort === "xhigh") rewritten.push({ from: "reasoning.effort=xhigh", to: "reasoning_effort=high" })
  const dropped: Array<string> = []
  // Only fields the capability data lists (ResponsesFields.ts), so the docs' tables name them too.
  const drop = (field: ResponsesOnlyField | "parallel_tool_calls", set: boolean) => {
    if (set) dropped.push(field)
  }
  drop("text.verbosity", s.text?.verbosity != null)
  drop("reasoning.summary", s.reasoning?.summary != null || s.reasoning?.generate_summary != null)
  drop("truncation", s.truncation === "auto")
  drop("service_tier", s.service_tier != null)
  drop("prompt_cache_key", s.prompt_cache_key != null)
  drop("top_logprobs", (s.top_logprobs ?? 0) > 0)
  drop("max_tool_calls", s.max_tool_calls != null)
  drop("include", (s.include ?? []).length > 0)
  drop("stream_options.include_obfuscation", s.stream_options?.include_obfuscation != null)
  drop("parallel_tool_calls", s.parallel_tool_calls != null && create.tools.length === 0)
  drop("input[].encrypted_content", items.some((item) => item["type"] === "reasoning" && item["encrypted_content"] != null && !isSealedReasoning(item["encrypted_content"])))
  return { rewritten, dropped }
}
