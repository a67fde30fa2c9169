import type { GatewayError } from "../Domain/GatewayError.ts"
import { jsonShapeRefused, type JsonShapeLimits } from "./BodyLimits.ts"

/** One container still to look into; `parent` and `key` rebuild its path only when it is refused. */
interface Pending {
  readonly value: object
  readonly depth: number
  readonly parent: Pending | undefined
  readonly key: string | number
}

const maxPathLength = 200

const pathOf = (entry: Pending | undefined): string | undefined => {
  const keys: Array<string | number> = []
  for (let at = entry; at !== undefined && at.parent !== undefined; at = at.parent) keys.push(at.key)
  if (keys.length === 0) return undefined
  let path = ""
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!
    path += typeof key === "number" ? `[${key}]` : path === "" ? key : `.${key}`
    if (path.length > maxPathLength) return `${path.slice(0, maxPathLength)}...`
  }
  return path
}

/**
 * Why a parsed JSON body breaks the nesting, key or item limits, or undefined: the reference the
 * structure meter (`JsonStructure.ts`), which applies these limits to a body's bytes as they
 * arrive, is tested against; bodies are not walked again once parsed. Walked with a stack of
 * its own, never recursion, so a body 1,000,000 levels deep costs a refusal, not the stack; only
 * objects and arrays are visited, so a long array of numbers or a long string costs one check per
 * item at most.
 */
export const jsonShapeRefusal = (root: object, limits: JsonShapeLimits): GatewayError | undefined => {
  const stack: Array<Pending> = [{ value: root, depth: 1, parent: undefined, key: "" }]
  while (stack.length > 0) {
    const entry = stack.pop()!
    if (entry.depth > limits.maxDepth) {
      return jsonShapeRefused(`nests deeper than ${limits.maxDepth} levels`, limits.maxDepth, "max_depth", pathOf(entry), "json_too_deep")
    }
    const value = entry.value
    const depth = entry.depth + 1
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayItems) {
        return jsonShapeRefused(
          `has an array of ${value.length.toLocaleString("en-US")} items`,
          limits.maxArrayItems,
          "max_array_items",
          pathOf(entry),
          "json_too_many_items"
        )
      }
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i]
        if (typeof item === "object" && item !== null) stack.push({ value: item, depth, parent: entry, key: i })
      }
      continue
    }
    const keys = Object.keys(value)
    if (keys.length > limits.maxObjectKeys) {
      return jsonShapeRefused(
        `has an object with ${keys.length.toLocaleString("en-US")} keys`,
        limits.maxObjectKeys,
        "max_object_keys",
        pathOf(entry),
        "json_too_many_keys"
      )
    }
    for (const key of keys) {
      const item: unknown = (value as Record<string, unknown>)[key]
      if (typeof item === "object" && item !== null) stack.push({ value: item, depth, parent: entry, key })
    }
  }
  return undefined
}

const backslash = 0x5c

/**
 * Counts backslashes (every JSON escape starts with one) in a chunk of the body, stopping as
 * soon as `budget` is spent: returns what is left, negative once the body has too many. Native
 * `indexOf` between hits, so a chunk without escapes costs one scan.
 */
export const spendEscapes = (chunk: Uint8Array, budget: number): number => {
  let left = budget
  let at = (chunk as Buffer).indexOf(backslash)
  while (at !== -1) {
    if (--left < 0) return left
    at = (chunk as Buffer).indexOf(backslash, at + 1)
  }
  return left
}
