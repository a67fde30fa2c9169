import type * as Schema from "effect/Schema"
import type { Document } from "yaml"
import { isMap, isScalar } from "yaml"
import { didYouMean } from "../../Domain/NearestName.ts"
import { knownKeysAt } from "../../Domain/SchemaErrors.ts"
import { profileNames } from "../../Providers/OpenAiCompatible/Profiles.ts"

/**
 * What turns a configuration error from a position into something to act on: the nearest valid
 * key or value ("did you mean 'base_url'?", "vllm is a profile of openai-compatible"), the id
 * of the entry it is in, and the line of the file.
 */

const providerKinds = ["openai", "anthropic", "gemini", "openai-compatible", "mock"]

/** The problem of a Schema failure at `path`, with a suggestion when there is one. */
export const schemaProblem = (error: Schema.SchemaError, path: ReadonlyArray<PropertyKey>, message: string, raw: unknown): string => {
  if (message === "Expected no excess property") {
    const name = path[path.length - 1]
    return `unknown key${typeof name === "string" ? didYouMean(name, knownKeysAt(error.issue, path)).replace(" Did", "; did") : ""}`
  }
  const problem = message.replace(/^Expected /, "expected ")
  if (path.length === 3 && path[0] === "providers" && path[2] === "kind") {
    const value = valueAt(raw, path)
    if (typeof value === "string" && profileNames.includes(value)) {
      return `${problem}; "${value}" is a profile of openai-compatible: write kind: openai-compatible and profile: ${value}`
    }
    if (typeof value === "string") return `${problem}${didYouMean(value, providerKinds).replace(" Did", "; did")}`
  }
  return problem
}

const valueAt = (raw: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = raw
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

/** `providers[6].base_ulr` -> ["providers", 6, "base_ulr"]. */
export const pathSegments = (path: string): ReadonlyArray<string | number> =>
  [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? m[1]! : Number(m[2])))

/** `provider 'vllm'` for a path inside `providers[i]` or `models[i]`, from the entry's own id. */
export const entryOf = (raw: unknown, segments: ReadonlyArray<string | number>): string | undefined => {
  const [list, index] = segments
  if ((list !== "providers" && list !== "models") || typeof index !== "number") return undefined
  const id = valueAt(raw, [list, index, "id"])
  return typeof id === "string" ? `${list === "providers" ? "provider" : "model"} '${id}'` : undefined
}

/** The 1-based line of the deepest node of `segments` the document has (the key itself for an unknown key). */
export const lineOf = (document: Document, text: string, segments: ReadonlyArray<string | number>): number | undefined => {
  for (let depth = segments.length; depth > 0; depth--) {
    const parent = depth === 1 ? document.contents : document.getIn(segments.slice(0, depth - 1), true)
    if (isMap(parent)) {
      const last = segments[depth - 1]
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === last)
      const range = pair !== undefined && isScalar(pair.key) ? pair.key.range : undefined
      if (range !== undefined && range !== null) return text.slice(0, range[0]).split("\n").length
    }
    // A key the entry lacks (a missing base_url): the line where the list entry starts.
    const node = document.getIn(segments.slice(0, depth), true) as { range?: [number, number, number] } | undefined
    if (node?.range !== undefined) return text.slice(0, node.range[0]).split("\n").length
  }
  return undefined
}
