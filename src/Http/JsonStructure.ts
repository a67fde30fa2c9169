import type { GatewayError } from "../Domain/GatewayError.ts"
import { jsonShapeRefused, type JsonShapeLimits } from "./BodyLimits.ts"

/** One open object or array; the slot of each depth is reused by every container at that depth. */
interface Level {
  array: boolean
  /** Items (array) or keys (object) begun so far. */
  count: number
  /** Waiting for the next item (array) or key (object): after the opening bracket or a comma. */
  awaiting: boolean
  /** Where the object's current key lies in the body (byte offsets), read only for a refusal's path. */
  keyStart: number
  keyEnd: number
}

/** Counts a JSON body's structure chunk by chunk; a refusal once it passes a limit (stop feeding then). */
export type JsonStructureMeter = (chunk: Uint8Array) => GatewayError | undefined

const quote = 0x22
const backslash = 0x5c
const maxKeyBytes = 200
const maxPathLength = 200
const keyDecoder = new TextDecoder()

// What each byte outside a string does.
const other = 0
const space = 1
const opens = 2
const closes = 3
const comma = 4
const colon = 5
const startsString = 6
const byteKinds = new Uint8Array(256)
for (const b of [0x20, 0x0a, 0x0d, 0x09]) byteKinds[b] = space
byteKinds[0x7b] = opens
byteKinds[0x5b] = opens
byteKinds[0x7d] = closes
byteKinds[0x5d] = closes
byteKinds[0x2c] = comma
byteKinds[0x3a] = colon
byteKinds[quote] = startsString

/**
 * The shape limits of `server.json_limits` applied to the bytes of a body while it is read, so a
 * body is refused before `JSON.parse` ever sees it: `JSON.parse` runs on the event loop in one go,
 * and what it costs grows with the objects, arrays and values it builds (200,000 small objects
 * took over 100 ms, a 200 MB body of them would take seconds and gigabytes). Besides the depth,
 * keys per object and items per array, the whole body's objects and arrays (`max_containers`) and
 * values (`max_values`) are counted, which bounds the parse itself. Long strings are skipped with
 * native searches, so a large base64 payload costs a few scans. Malformed JSON is not judged here
 * (the parser refuses it); the meter only never under-counts well-formed JSON. It keeps the
 * chunks it was fed (the reader holds them anyway) to name the path of a refusal.
 */
export const makeJsonStructureMeter = (limits: JsonShapeLimits): JsonStructureMeter => {
  const levels: Array<Level> = []
  let depth = 0
  let containers = 0
  let values = 0
  let inString = false
  let escaped = false
  // The level whose key is being read, when the string is a key.
  let keyOf: Level | undefined
  // Every chunk so far and the body offset it starts at, for the keys of a path.
  const fed: Array<Uint8Array> = []
  let offset = 0

  const keyText = (level: Level): string => {
    const start = level.keyStart
    const stop = Math.min(level.keyEnd, start + maxKeyBytes)
    const bytes = new Uint8Array(Math.max(0, stop - start))
    let at = 0
    for (const chunk of fed) {
      const from = Math.max(start - at, 0)
      const to = Math.min(stop - at, chunk.length)
      if (from < to) bytes.set(chunk.subarray(from, to), from + at - start)
      at += chunk.length
    }
    return keyDecoder.decode(bytes)
  }

  /** The path of the first `count` open levels, as the parsed-body walk names it. */
  const pathOf = (count: number): string | undefined => {
    let path = ""
    for (let i = 0; i < count; i++) {
      const level = levels[i]!
      path += level.array ? `[${level.count - 1}]` : path === "" ? keyText(level) : `.${keyText(level)}`
      if (path.length > maxPathLength) return `${path.slice(0, maxPathLength)}...`
    }
    return path === "" ? undefined : path
  }

  const tooManyValues = () =>
    jsonShapeRefused(`holds more than ${limits.maxValues.toLocaleString("en-US")} values`, limits.maxValues, "max_values", undefined, "json_too_many_values")

  /** A value begins inside the innermost level (an array item; an object's is counted at its key). */
  const itemStarts = (): GatewayError | undefined => {
    if (depth === 0) return undefined
    const top = levels[depth - 1]!
    if (!top.array || !top.awaiting) return undefined
    top.awaiting = false
    if (++top.count > limits.maxArrayItems) {
      return jsonShapeRefused(
        `has an array of more than ${limits.maxArrayItems.toLocaleString("en-US")} items`,
        limits.maxArrayItems,
        "max_array_items",
        pathOf(depth - 1),
        "json_too_many_items"
      )
    }
    return ++values > limits.maxValues ? tooManyValues() : undefined
  }

  const open = (array: boolean): GatewayError | undefined => {
    const item = itemStarts()
    if (item !== undefined) return item
    if (depth >= limits.maxDepth) {
      return jsonShapeRefused(`nests deeper than ${limits.maxDepth} levels`, limits.maxDepth, "max_depth", pathOf(depth), "json_too_deep")
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
    if (depth === 0 && ++values > limits.maxValues) return tooManyValues()
    const level = (levels[depth] ??= { array, count: 0, awaiting: true, keyStart: 0, keyEnd: 0 })
    level.array = array
    level.count = 0
    level.awaiting = true
    depth++
    return undefined
  }

  /** A string starts at body offset `at`: an object's key (counted, and located for the path) or a value. */
  const stringStarts = (at: number): GatewayError | undefined => {
    if (depth === 0) return undefined
    const top = levels[depth - 1]!
    if (top.array || !top.awaiting) return itemStarts()
    top.awaiting = false
    if (++top.count > limits.maxObjectKeys) {
      return jsonShapeRefused(
        `has an object with more than ${limits.maxObjectKeys.toLocaleString("en-US")} keys`,
        limits.maxObjectKeys,
        "max_object_keys",
        pathOf(depth - 1),
        "json_too_many_keys"
      )
    }
    if (++values > limits.maxValues) return tooManyValues()
    top.keyStart = at
    top.keyEnd = at
    keyOf = top
    return undefined
  }

  return (chunk) => {
    fed.push(chunk)
    const end = chunk.length
    // Where the next quote and backslash are, searched natively and only once passed.
    let nextQuote = -1
    let nextBackslash = -1
    let i = 0
    while (i < end) {
      if (inString) {
        if (escaped) {
          escaped = false
          i++
          continue
        }
        // Short strings are stepped over here; past a few dozen bytes a native search jumps to the
        // next byte that can end the string or escape one (a call costs more than a short string).
        const near = Math.min(end, i + 48)
        while (i < near && chunk[i] !== quote && chunk[i] !== backslash) i++
        if (i === near && i < end) {
          if (nextQuote < i) nextQuote = indexOrEnd(chunk, quote, i)
          if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, backslash, i)
          i = Math.min(nextQuote, nextBackslash)
        }
        if (i >= end) break
        if (chunk[i++] === backslash) {
          escaped = true
        } else {
          inString = false
          if (keyOf !== undefined) keyOf.keyEnd = offset + i - 1
          keyOf = undefined
        }
        continue
      }
      const b = chunk[i++]!
      let refused: GatewayError | undefined
      switch (byteKinds[b]) {
        case space:
        case colon:
          continue
        case startsString:
          inString = true
          refused = stringStarts(offset + i)
          break
        case opens:
          refused = open(b === 0x5b)
          break
        case closes:
          if (depth > 0) depth--
          break
        case comma:
          if (depth > 0) levels[depth - 1]!.awaiting = true
          break
        default:
          // A number, true, false or null: its first character starts an array item.
          refused = itemStarts()
      }
      if (refused !== undefined) return refused
    }
    offset += end
    return undefined
  }
}

const indexOrEnd = (chunk: Uint8Array, byte: number, from: number): number => {
  const at = (chunk as Buffer).indexOf(byte, from)
  return at === -1 ? chunk.length : at
}
