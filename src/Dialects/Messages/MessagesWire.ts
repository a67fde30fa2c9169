import * as Schema from "effect/Schema"

/**
 * Anthropic's Messages API request as the gateway decodes it. Shells only: content blocks are
 * decoded one by one after their `type` selected a schema, so an error names its own path
 * (`messages[1].content[0].source.media_type`).
 * @see https://platform.claude.com/docs/en/api/messages/create
 */

const between = (minimum: number, maximum: number) => Schema.Finite.check(Schema.isBetween({ minimum, maximum }))
const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(schema)
const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching */
export const CacheControl = Schema.Struct({ type: Schema.Literal("ephemeral"), ttl: optional(Schema.String) })

export const ToolName = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_-]{1,128}$/, { expected: "a name of 1 to 128 letters, digits, underscores or dashes" })
)

/** A client tool; server tools (`web_search_20250305`, ...) have a `type` and no schema. */
export const CustomTool = Schema.Struct({
  type: optional(Schema.Literal("custom")),
  name: ToolName,
  description: optional(Schema.String),
  input_schema: JsonObject,
  cache_control: optional(Schema.NullOr(CacheControl)),
  strict: optional(Schema.Boolean)
})

export const ToolChoice = Schema.Union([
  Schema.Struct({ type: Schema.Literals(["auto", "any"]), disable_parallel_tool_use: optional(Schema.Boolean) }),
  Schema.Struct({ type: Schema.Literal("tool"), name: ToolName, disable_parallel_tool_use: optional(Schema.Boolean) }),
  Schema.Struct({ type: Schema.Literal("none") })
])
export type ToolChoice = typeof ToolChoice.Type

/** @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking */
export const Thinking = Schema.Union([
  Schema.Struct({ type: Schema.Literal("enabled"), budget_tokens: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1024)) }),
  Schema.Struct({ type: Schema.Literals(["disabled", "adaptive"]) })
])

export const MessagesShell = Schema.Struct({
  model: Schema.NonEmptyString,
  max_tokens: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  messages: Schema.Array(Schema.Unknown).check(Schema.isMinLength(1, { expected: "at least one message" })),
  system: optional(Schema.Union([Schema.String, Schema.Array(Schema.Unknown)])),
  stop_sequences: optional(Schema.Array(Schema.String)),
  stream: optional(Schema.Boolean),
  temperature: optional(between(0, 1)),
  top_p: optional(between(0, 1)),
  top_k: optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  metadata: optional(Schema.Struct({ user_id: optional(Schema.NullOr(Schema.String)) })),
  tools: optional(Schema.Array(Schema.Unknown)),
  tool_choice: optional(ToolChoice),
  thinking: optional(Thinking),
  output_config: optional(
    Schema.Struct({
      format: optional(Schema.NullOr(Schema.Struct({ type: Schema.Literal("json_schema"), schema: JsonObject }))),
      effort: optional(Schema.NullOr(Schema.Literals(["low", "medium", "high", "max"])))
    })
  ),
  service_tier: optional(Schema.Literals(["auto", "standard_only"]))
})
export type MessagesShell = typeof MessagesShell.Type

/**
 * Fields of the API the neutral request has no place for. They reach an Anthropic provider
 * unchanged (native); any other provider goes without them, and the translation report says so.
 */
export const nativeOnlyFields: ReadonlySet<string> = new Set([
  "service_tier",
  "container",
  "mcp_servers",
  "context_management",
  "inference_geo",
  "cache_control",
  "speed",
  "diagnostics",
  "user_profile_id",
  "workspace_id"
])

export const MessageShell = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([Schema.String, Schema.Array(Schema.Unknown)])
})

const Citations = optional(Schema.Unknown)
const Cache = optional(Schema.NullOr(CacheControl))

export const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String, cache_control: Cache, citations: Citations })
export type TextBlock = typeof TextBlock.Type

/** @see https://platform.claude.com/docs/en/build-with-claude/vision */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: Schema.Union([
    Schema.Struct({
      type: Schema.Literal("base64"),
      media_type: Schema.Literals(["image/jpeg", "image/png", "image/gif", "image/webp"]),
      data: Schema.NonEmptyString
    }),
    Schema.Struct({ type: Schema.Literal("url"), url: Schema.NonEmptyString })
  ]),
  cache_control: Cache
})
export type ImageBlock = typeof ImageBlock.Type

/** @see https://platform.claude.com/docs/en/build-with-claude/pdf-support */
export const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Union([
    Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.Literal("application/pdf"), data: Schema.NonEmptyString }),
    Schema.Struct({ type: Schema.Literal("text"), media_type: Schema.Literal("text/plain"), data: Schema.String }),
    Schema.Struct({ type: Schema.Literal("url"), url: Schema.NonEmptyString })
  ]),
  title: optional(Schema.NullOr(Schema.String)),
  context: optional(Schema.NullOr(Schema.String)),
  citations: Citations,
  cache_control: Cache
})
export type DocumentBlock = typeof DocumentBlock.Type

export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.NonEmptyString,
  name: Schema.String,
  input: JsonObject,
  cache_control: Cache
})

export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.NonEmptyString,
  content: optional(Schema.Union([Schema.String, Schema.Array(Schema.Unknown)])),
  is_error: optional(Schema.Boolean),
  cache_control: Cache
})

export const ThinkingBlock = Schema.Struct({ type: Schema.Literal("thinking"), thinking: Schema.String, signature: Schema.String })
export const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
