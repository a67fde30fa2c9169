import type { GatewayError } from "../Domain/GatewayError.ts"
import { jsonShapeRefused, type JsonShapeLimits } from "./BodyLimits.ts"

/** One open object or array. */
interface Level {
  readonly array: boolean
  /** Items (array) or keys (object) begun so far. */
  count: number
  /** Waiting for the next item (array) or key (object): after the opening bracket or a comma. */
  awaiting: boolean
  /** The object's current key, for the path of a refusal. */
  key: string
}

/** Counts a JSON body's structure chunk by chunk; a refusal once it passes a limit (stop feeding then). */
export type JsonStructureMeter = (chunk: Uint8Array) => GatewayError | undefined

const quote = 0x22
const backslash = 0x5c
const maxKeyBytes = 200
const maxPathLength = 200
const keyDecoder = new TextDecoder()

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/**
 * The shape limits of `server.json_limits` applied to the bytes of a body while it is read, so a
 * body is refused before `JSON.parse` ever sees it: `JSON.parse` runs on the event loop in one go,
 * and what it costs grows with the objects, arrays and values it builds (200,000 small objects
 * took over 100 ms, a 200 MB body of them would take seconds and gigabytes). Besides the depth,
 * keys per object and items per array, the whole body's objects and arrays (`max_containers`) and
 * values (`max_values`) are counted, which bounds the parse itself. Strings are skipped with
 * native searches, so a large base64 payload costs a few scans. Malformed JSON is not judged here
 * (the parser refuses it); the meter only never under-counts well-formed JSON.
 */
export const makeJsonStructureMeter = (limits: JsonShapeLimits): JsonStructureMeter => {
  const stack: Array<Level> = []
  let containers = 0
  let values = 0
  let inString = false
  let escaped = false
  // The key being read, when the string is one.
  let keyBytes: Uint8Array | undefined
  let keyLength = 0

  const pathOf = (levels: number): string | undefined => {
    let path = ""
    for (let i = 0; i < levels; i++) {
      const level = stack[i]!
      path += level.array ? `[${level.count - 1}]` : path === "" ? level.key : `.${level.key}`
      if (path.length > maxPathLength) return `${path.slice(0, maxPathLength)}...`
    }
    return path === "" ? undefined : path
  }

  /** A value begins inside the innermost level (an array item; an object's is counted at its key). */
  const itemStarts = (): GatewayError | undefined => {
    const top = stack[stack.length - 1]
    if (top === undefined || !top.array || !top.awaiting) return undefined
    top.awaiting = false
    if (++top.count > limits.maxArrayItems) {
      return jsonShapeRefused(
        `has an array of more than ${limits.maxArrayItems.toLocaleString("en-US")} items`,
        limits.maxArrayItems,
        "max_array_items",
        pathOf(stack.length - 1),
        "json_too_many_items"
      )
    }
    return ++values > limits.maxValues ? tooManyValues() : undefined
  }

  const tooManyValues = () =>
    jsonShapeRefused(`holds more than ${limits.maxValues.toLocaleString("en-US")} values`, limits.maxValues, "max_values", undefined, "json_too_many_values")

  const open = (array: boolean): GatewayError | undefined => {
    const item = itemStarts()
    if (item !== undefined) return item
    if (stack.length >= limits.maxDepth) {
      return jsonShapeRefused(`nests deeper than ${limits.maxDepth} levels`, limits.maxDepth, "max_depth", pathOf(stack.length), "json_too_deep")
    }
    if (++containers > limits.maxContainers) {
      return jsonShapeRefused(
        `holds more than ${limits.maxContainers.toLocaleString("en-US")} objects and arrays`,
        limits.maxContainers,
        "max_containers",
        undefined,
        "json_too_many_containers"
      )
    }
    // The body itself is a value too.
    if (stack.length === 0 && ++values > limits.maxValues) return tooManyValues()
    stack.push({ array, count: 0, awaiting: true, key: "" })
    return undefined
  }

  /** A string starts: an object's key (counted, and read for the path) or a value. */
  const stringStarts = (): GatewayError | undefined => {
    const top = stack[stack.length - 1]
    if (top === undefined || top.array || !top.awaiting) return itemStarts()
    top.awaiting = false
    if (++top.count > limits.maxObjectKeys) {
      return jsonShapeRefused(
        `has an object with more than ${limits.maxObjectKeys.toLocaleString("en-US")} keys`,
        limits.maxObjectKeys,
        "max_object_keys",
        pathOf(stack.length - 1),
        "json_too_many_keys"
      )
    }
    if (++values > limits.maxValues) return tooManyValues()
    keyBytes ??= new Uint8Array(maxKeyBytes)
    keyLength = 0
    top.key = ""
    return undefined
  }

  return (chunk) => {
    const end = chunk.length
    // Where the next quote and backslash are, searched natively and only once passed.
    let nextQuote = -1
    let nextBackslash = -1
    let i = 0
    while (i < end) {
      if (inString) {
        const reading = keyLength >= 0
        if (escaped) {
          escaped = false
          if (reading && keyLength < maxKeyBytes) keyBytes![keyLength++] = chunk[i]!
          i++
          continue
        }
        if (!reading || keyLength >= maxKeyBytes) {
          // Jump to the next byte that can end the string or escape one.
          if (nextQuote < i) nextQuote = indexOrEnd(chunk, quote, i)
          if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, backslash, i)
          i = Math.min(nextQuote, nextBackslash)
          if (i >= end) break
        }
        const b = chunk[i++]!
        if (b === backslash) {
          escaped = true
        } else if (b === quote) {
          inString = false
          if (reading) stack[stack.length - 1]!.key = keyDecoder.decode(keyBytes!.subarray(0, Math.min(keyLength, maxKeyBytes)))
          keyLength = -1
          continue
        }
        if (reading && keyLength < maxKeyBytes) keyBytes![keyLength++] = b
        continue
      }
      const b = chunk[i++]!
      if (isSpace(b)) continue
      let refused: GatewayError | undefined
      switch (b) {
        case quote:
          inString = true
          keyLength = -1
          refused = stringStarts()
          break
        case 0x7b: // {
        case 0x5b: // [
          refused = open(b === 0x5b)
          break
        case 0x7d: // }
        case 0x5d: // ]
          stack.pop()
          break
        case 0x2c: {
          // ,
          const top = stack[stack.length - 1]
          if (top !== undefined) top.awaiting = true
          break
        }
        case 0x3a: // :
          break
        default:
          // A number, true, false or null: its first character starts an array item.
          refused = itemStarts()
      }
      if (refused !== undefined) return refused
    }
    return undefined
  }
}

const indexOrEnd = (chunk: Uint8Array, byte: number, from: number): number => {
  const at = (chunk as Buffer).indexOf(byte, from)
  return at === -1 ? chunk.length : at
}
