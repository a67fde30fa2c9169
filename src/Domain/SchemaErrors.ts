import type * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaAST from "effect/SchemaAST"
import { GatewayError } from "./GatewayError.ts"
import { didYouMean } from "./NearestName.ts"

/** `messages[0].content[1].type`, the way clients print paths. */
export const formatIssuePath = (path: ReadonlyArray<unknown>): string =>
  path.reduce<string>((acc, segment) => {
    const key = typeof segment === "object" && segment !== null && "key" in segment ? (segment as { key: unknown }).key : segment
    return typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`
  }, "")

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (message: string): string =>
  message === "Missing key" ? "this field is required" : message.replace(/^Expected /, "expected ")

const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) => a.length === b.length && a.every((k, i) => k === b[i])

/** The keys the object that refused an unknown key at `path` does take, read from its schema. */
export const knownKeysAt = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> => {
  const walk = (node: SchemaIssue.Issue, at: ReadonlyArray<PropertyKey>): ReadonlyArray<string> | undefined => {
    switch (node._tag) {
      case "Pointer":
        return walk(node.issue, [...at, ...node.path])
      case "Composite":
      case "AnyOf":
        for (const child of node.issues) {
          const found = walk(child, at)
          if (found !== undefined) return found
        }
        return undefined
      case "Filter":
      case "Encoding":
        return walk(node.issue, at)
      case "UnexpectedKey":
        return samePath(at, path) && SchemaAST.isObjects(node.ast)
          ? node.ast.propertySignatures.map((p) => String(p.name))
          : undefined
      default:
        return undefined
    }
  }
  return walk(issue, []) ?? []
}

/** "expected no excess property", with the key the client probably meant. */
const unknownKey = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): string => {
  const name = path[path.length - 1]
  const hint = typeof name === "string" ? didYouMean(name, knownKeysAt(issue, path)) : ""
  return `expected no excess property.${hint}`
}

/**
 * A Schema failure as a 400 naming the first offending field. `prefix` is the path of the
 * value that was decoded, for schemas applied to a piece of a larger body.
 */
export const schemaErrorToGateway = (error: Schema.SchemaError, prefix: ReadonlyArray<PropertyKey> = []): GatewayError => {
  const first = formatter(error.issue).issues[0]
  const path = (first?.path ?? []) as ReadonlyArray<PropertyKey>
  const param = formatIssuePath([...prefix, ...path])
  const detail = first?.message === "Expected no excess property"
    ? unknownKey(error.issue, path)
    : `${describe(first?.message ?? "invalid value")}.`
  return param === ""
    ? GatewayError.invalid(`Invalid request body: ${detail}`)
    : GatewayError.invalid(`Invalid value for '${param}': ${detail}`, param)
}
