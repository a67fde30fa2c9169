import type { DecisionState } from "./DecisionRequest.ts"

export interface StateReference {
  /** The path as the instructions wrote it, e.g. `order.customer.name` or `items.0.price`. */
  readonly path: string
  readonly value: unknown
}

/**
 * A dotted path in free text: two or more segments joined by ".", each a name (letters, digits,
 * `_`, `$`, `-`, not starting with a digit or `-`) or, after the first, an array index. A
 * sentence's final period is not a segment ("... of parent.child." names `parent.child`).
 */
const dottedPath = /(?<![\w$.-])[A-Za-z_$][\w$-]*(?:\.(?:[A-Za-z_$][\w$-]*|\d+))+(?![\w$])/g

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value at `segments` below `root`: object keys by name, array elements by index. */
const lookUp = (root: unknown, segments: ReadonlyArray<string>): { readonly value: unknown } | undefined => {
  let current = root
  for (const segment of segments) {
    if (Array.isArray(current) && /^\d+$/.test(segment) && Number(segment) < current.length) current = current[Number(segment)]
    else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment]
    else return undefined
  }
  return { value: current }
}

/**
 * The nested fields of the state that the instructions name (spec 4.6: `parent.child`), in the
 * order they first appear, each once. Only paths that resolve in an object or array state are
 * returned; anything else that merely looks like a path ("node.js", "e.g.") stays plain text.
 * The model is shown each value next to the question, so it reads the field the caller meant
 * even in a large state.
 */
export const stateReferences = (state: DecisionState, instructions: string): ReadonlyArray<StateReference> => {
  if (typeof state === "string") return []
  const found: Array<StateReference> = []
  const seen = new Set<string>()
  for (const match of instructions.matchAll(dottedPath)) {
    const path = match[0]
    if (seen.has(path)) continue
    seen.add(path)
    const hit = lookUp(state, path.split("."))
    if (hit !== undefined) found.push({ path, value: hit.value })
  }
  return found
}
