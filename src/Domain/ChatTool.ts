import * as Schema from "effect/Schema"

/** JSON Schema objects are kept as plain JSON; providers translate them. */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
export type JsonObject = typeof JsonObject.Type

const FunctionName = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_-]{1,64}$/, { expected: "a name of 1 to 64 letters, digits, underscores or dashes" })
)

export const FunctionDefinition = Schema.Struct({
  name: FunctionName,
  description: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(JsonObject),
  strict: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
})
export type FunctionDefinition = typeof FunctionDefinition.Type

export const ToolDefinition = Schema.Struct({
  type: Schema.Literal("function"),
  function: FunctionDefinition
})
export type ToolDefinition = typeof ToolDefinition.Type

export const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  Schema.Struct({ type: Schema.Literal("function"), function: Schema.Struct({ name: Schema.String }) })
])
export type ToolChoice = typeof ToolChoice.Type

/** A call the assistant made (history in requests, output in responses). */
export const ToolCall = Schema.Struct({
  id: Schema.NonEmptyString,
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    /** A JSON string, exactly as the model produced it. */
    arguments: Schema.String
  })
})
export type ToolCall = typeof ToolCall.Type

export const JsonSchemaFormat = Schema.Struct({
  name: Schema.String.check(
    Schema.isPattern(/^[a-zA-Z0-9_-]{1,64}$/, { expected: "a name of 1 to 64 letters, digits, underscores or dashes" })
  ),
  description: Schema.optionalKey(Schema.String),
  schema: JsonObject,
  strict: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
})
export type JsonSchemaFormat = typeof JsonSchemaFormat.Type

export const ResponseFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json_object") }),
  Schema.Struct({ type: Schema.Literal("json_schema"), json_schema: JsonSchemaFormat })
])
export type ResponseFormat = typeof ResponseFormat.Type
