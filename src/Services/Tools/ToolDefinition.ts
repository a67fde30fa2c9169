import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { formatIssuePath } from "../../Domain/SchemaErrors.ts"
import type { ToolId } from "../../Domain/ToolCost.ts"

/**
 * A parameter with a default: the default and the description are annotations of the inner
 * schema, so the JSON Schema of `GET /v1/tools` shows them, and the decoder fills the default in.
 */
export const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"], description: string) =>
  (schema.annotate({ description, default: value }) as S).pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/** What `GET /v1/tools` lists for one tool. */
export interface ToolListing {
  readonly id: ToolId
  readonly description: string
  /** JSON Schema (draft 2020-12) of the request body, generated from the schema that decodes it. */
  readonly parameters: Readonly<Record<string, unknown>>
}

/** One call, decoded and ready to run. */
export interface ToolCall {
  readonly tool: ToolId
  readonly run: Effect.Effect<unknown, GatewayError>
}

export interface Tool {
  readonly listing: ToolListing
  /** Decodes a request body; a 400 names the first offending field, unknown parameters included. */
  readonly decode: (body: unknown) => Effect.Effect<ToolCall, GatewayError>
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const parameterError = (tool: ToolId, error: Schema.SchemaError): GatewayError => {
  const first = formatter(error.issue).issues[0]
  const param = formatIssuePath(first?.path ?? [])
  const message = first?.message ?? "invalid value"
  if (message === "Expected no excess property") {
    return GatewayError.invalid(`Unrecognized parameter '${param}' for the tool '${tool}'.`, param, "unknown_parameter")
  }
  const detail = message === "Missing key" ? "this field is required" : message.replace(/^Expected /, "expected ")
  return param === ""
    ? GatewayError.invalid(`Invalid parameters for the tool '${tool}': ${detail}.`)
    : GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param)
}

/** The JSON Schema of the encoded (wire) side, closed to unknown keys like the decoder. */
export const parametersJsonSchema = (schema: Schema.Top): Readonly<Record<string, unknown>> => {
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const definitions = document.definitions
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...document.schema,
    ...(Object.keys(definitions).length === 0 ? {} : { $defs: definitions })
  }
}

/** A tool from its parameter schema and what a call does with the decoded parameters. */
export const defineTool = <S extends Schema.Decoder<unknown>>(spec: {
  readonly id: ToolId
  readonly description: string
  readonly parameters: S & Schema.Top
  readonly run: (parameters: S["Type"]) => Effect.Effect<unknown, GatewayError>
}): Tool => {
  const decode = Schema.decodeUnknownEffect(spec.parameters)
  return {
    listing: { id: spec.id, description: spec.description, parameters: parametersJsonSchema(spec.parameters) },
    decode: (body) =>
      decode(body, { onExcessProperty: "error" }).pipe(
        Effect.mapError((error) => parameterError(spec.id, error)),
        Effect.map((parameters) => ({ tool: spec.id, run: spec.run(parameters) }))
      ) as Effect.Effect<ToolCall, GatewayError>
  }
}
