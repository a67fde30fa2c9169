import type * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { GatewayError } from "./GatewayError.ts"

/** `messages[0].content[1].type`, the way clients print paths. */
export const formatIssuePath = (path: ReadonlyArray<unknown>): string =>
  path.reduce<string>((acc, segment) => {
    const key = typeof segment === "object" && segment !== null && "key" in segment ? (segment as { key: unknown }).key : segment
    return typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`
  }, "")

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (message: string): string =>
  message === "Missing key" ? "this field is required" : message.replace(/^Expected /, "expected ")

/**
 * A Schema failure as a 400 naming the first offending field. `prefix` is the path of the
 * value that was decoded, for schemas applied to a piece of a larger body.
 */
export const schemaErrorToGateway = (error: Schema.SchemaError, prefix: ReadonlyArray<PropertyKey> = []): GatewayError => {
  const first = formatter(error.issue).issues[0]
  const param = formatIssuePath([...prefix, ...(first?.path ?? [])])
  const detail = describe(first?.message ?? "invalid value")
  return param === ""
    ? GatewayError.invalid(`Invalid request body: ${detail}.`)
    : GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param)
}
