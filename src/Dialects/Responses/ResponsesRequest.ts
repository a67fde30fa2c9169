import * as Schema from "effect/Schema"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { JsonObject, ResponseFormat, ToolChoice, ToolDefinition } from "../../Domain/ChatTool.ts"

const between = (minimum: number, maximum: number) => Schema.Finite.check(Schema.isBetween({ minimum, maximum }))
const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/**
 * The top level of `POST /v1/responses`. `input`, `tools`, `tool_choice` and `text` are decoded
 * separately (ResponsesDecoder.ts) so a mistake inside them is reported at its own path.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const ResponsesRequestShell = Schema.Struct({
  model: Schema.NonEmptyString,
  input: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(Schema.Unknown)])),
  instructions: nullable(Schema.String),
  stream: nullable(Schema.Boolean),
  stream_options: nullable(Schema.Struct({ include_obfuscation: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) })),
  store: nullable(Schema.Boolean),
  previous_response_id: nullable(Schema.NonEmptyString),
  max_output_tokens: nullable(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  temperature: nullable(between(0, 2)),
  top_p: nullable(between(0, 1)),
  parallel_tool_calls: nullable(Schema.Boolean),
  metadata: nullable(
    Schema.Record(Schema.String, Schema.String.check(Schema.isMaxLength(512, { expected: "at most 512 characters" }))).check(
      Schema.makeFilter((record) => Object.keys(record).length <= 16 || "at most 16 keys")
    )
  ),
  user: nullable(Schema.String),
  safety_identifier: nullable(Schema.String),
  prompt_cache_key: nullable(Schema.String),
  tools: nullable(Schema.Array(Schema.Unknown)),
  tool_choice: nullable(Schema.Unknown),
  text: nullable(Schema.Struct({ format: Schema.optionalKey(Schema.NullOr(Schema.Unknown)), verbosity: nullable(Schema.Literals(["low", "medium", "high"])) })),
  reasoning: nullable(
    Schema.Struct({
      effort: nullable(Schema.Literals(["none", "minimal", "low", "medium", "high", "xhigh"])),
      summary: nullable(Schema.Literals(["auto", "concise", "detailed"])),
      generate_summary: nullable(Schema.Literals(["auto", "concise", "detailed"]))
    })
  ),
  include: nullable(Schema.Array(Schema.String)),
  truncation: nullable(Schema.Literals(["auto", "disabled"])),
  service_tier: nullable(Schema.Literals(["auto", "default", "flex", "scale", "priority"])),
  top_logprobs: nullable(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20 }))),
  max_tool_calls: nullable(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  background: nullable(Schema.Boolean)
})
export type ResponsesRequestShell = typeof ResponsesRequestShell.Type

/**
 * A decoded `POST /v1/responses` body: checked input items (an `item_reference` still unresolved),
 * function tools, the tool choice and output format in their chat form, and the top-level settings.
 */
export interface ResponsesCreate {
  readonly model: string
  readonly stream: boolean
  readonly input: ReadonlyArray<JsonObject>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly toolChoice: ToolChoice | undefined
  readonly format: ResponseFormat | undefined
  readonly store: boolean
  readonly settings: ResponsesRequestShell
}

/**
 * A request ready to route: the neutral chat request every provider codec takes, and the whole
 * conversation as items (the previous response's, then this input, references resolved), which
 * a stored response keeps so that `previous_response_id` can continue it.
 */
export interface ResponsesCall {
  readonly model: string
  readonly create: ResponsesCreate
  readonly items: ReadonlyArray<JsonObject>
  readonly chat: ChatRequest
  /** What the translation to the neutral request rewrote and dropped, in the client's field names. */
  readonly translation: ResponsesTranslation
}

export interface ResponsesTranslation {
  readonly rewritten: ReadonlyArray<{ readonly from: string; readonly to: string }>
  readonly dropped: ReadonlyArray<string>
}
