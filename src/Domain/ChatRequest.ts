import * as Schema from "effect/Schema"
import type { ChatMessage } from "./ChatMessage.ts"
import { JsonObject, ResponseFormat, ToolChoice, ToolDefinition } from "./ChatTool.ts"
import type { DecodedTranslation } from "./TranslationReport.ts"

const between = (minimum: number, maximum: number) => Schema.Finite.check(Schema.isBetween({ minimum, maximum }))
const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

export const ReasoningEffort = Schema.Literals(["minimal", "low", "medium", "high"])
export type ReasoningEffort = typeof ReasoningEffort.Type

/**
 * The top level of `POST /v1/chat/completions` (spec 4.1). `null` is accepted wherever the
 * common convention allows it and means "not set". Messages are decoded separately.
 */
export const ChatRequestShell = Schema.Struct({
  model: Schema.NonEmptyString,
  messages: Schema.Array(Schema.Unknown).check(
    Schema.isMinLength(1, { expected: "at least one message" })
  ),
  stream: nullable(Schema.Boolean),
  stream_options: nullable(Schema.Struct({ include_usage: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) })),
  max_completion_tokens: nullable(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  max_tokens: nullable(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  temperature: nullable(between(0, 2)),
  top_p: nullable(between(0, 1)),
  n: nullable(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 128 }))),
  stop: nullable(
    Schema.Union([Schema.String, Schema.Array(Schema.String).check(Schema.isMaxLength(4, { expected: "at most 4 stop sequences" }))])
  ),
  presence_penalty: nullable(between(-2, 2)),
  frequency_penalty: nullable(between(-2, 2)),
  seed: nullable(Schema.Int),
  response_format: nullable(ResponseFormat),
  tools: nullable(Schema.Array(ToolDefinition)),
  tool_choice: nullable(ToolChoice),
  parallel_tool_calls: nullable(Schema.Boolean),
  reasoning_effort: nullable(ReasoningEffort),
  modalities: nullable(Schema.Array(Schema.Literals(["text", "audio"]))),
  logprobs: nullable(Schema.Boolean),
  top_logprobs: nullable(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20 }))),
  logit_bias: nullable(
    Schema.Record(
      Schema.String.check(Schema.isPattern(/^\d+$/, { expected: "a token id" })),
      between(-100, 100)
    )
  ),
  metadata: nullable(Schema.Record(Schema.String, Schema.String)),
  user: nullable(Schema.String),
  safety_identifier: nullable(Schema.String)
})
export type ChatRequestShell = typeof ChatRequestShell.Type

/** Fields of the common convention that change nothing for providers that do not know them. */
export const advisoryFields: ReadonlySet<string> = new Set([
  "store",
  "service_tier",
  "prompt_cache_key",
  "user",
  "metadata"
])

/**
 * A validated chat request with aliases resolved: `max_tokens` is `max_completion_tokens`,
 * `safety_identifier` is `user`, `developer` messages are `system`, nulls are absent.
 * `extra` holds top-level fields this gateway does not model; OpenAI-style upstreams receive
 * them unchanged, other providers refuse them by name.
 */
export interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly stream: boolean
  readonly includeUsage: boolean
  readonly max_completion_tokens?: number
  readonly temperature?: number
  readonly top_p?: number
  /** Only from dialects that have it (Messages); chat completions has no such field. */
  readonly top_k?: number
  readonly n: number
  readonly stop?: ReadonlyArray<string>
  readonly presence_penalty?: number
  readonly frequency_penalty?: number
  readonly seed?: number
  readonly response_format?: ResponseFormat
  readonly tools?: ReadonlyArray<ToolDefinition>
  readonly tool_choice?: ToolChoice
  readonly parallel_tool_calls?: boolean
  readonly reasoning_effort?: ReasoningEffort
  readonly modalities?: ReadonlyArray<"text" | "audio">
  readonly logprobs?: boolean
  readonly top_logprobs?: number
  readonly logit_bias?: Readonly<Record<string, number>>
  readonly metadata?: Readonly<Record<string, string>>
  readonly user?: string
  readonly extra: Readonly<JsonObject>
  /**
   * Set by the gateway, never decoded from a body: the first this-many messages are a prefix
   * that other calls of the same request repeat (decisions: instructions, then the state).
   * Providers with explicit prompt caching mark its end (Anthropic `cache_control`); OpenAI and
   * Gemini cache repeated prefixes by themselves.
   */
  readonly sharedPrefix?: number
  /**
   * Set by the dialect decoder, never decoded from a body: which client field each neutral
   * field came from, and what decoding itself rewrote or dropped (see TranslationReport.ts).
   */
  readonly translation?: DecodedTranslation
  /**
   * Set by a dialect decoder, never decoded from a body: the client's request in its own API,
   * for providers that speak that API (Messages to `anthropic`, Responses to `openai`). Their
   * adapter sends it as it came instead of translating the neutral fields; every other provider
   * ignores it.
   */
  readonly native?: NativeRequest
}

export interface NativeRequest {
  readonly api: "anthropic-messages" | "openai-responses"
  /** The body as the client sent it; the adapter sets only the upstream model and the stream flag. */
  readonly body: Readonly<Record<string, unknown>>
  /** Request headers of that API to forward (`anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>
}
