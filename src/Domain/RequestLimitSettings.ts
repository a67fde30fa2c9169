import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * The body cap of each JSON route other than chat, in MiB: refused by the declared
 * Content-Length before any byte is read, and by a running count while reading (413 naming the
 * key). Each is sized for what the route can legitimately carry.
 */
export const BodyLimitSettings = Schema.Struct({
  /** 2,048 inputs of text or token arrays. */
  embeddings_mb: withDefault(PositiveInt, 16),
  /** `POST /v1/images` carries its input references inline as base64 (20 MB each by default). */
  images_mb: withDefault(PositiveInt, 64),
  /** A prompt, options and a state of at most `decisions.max_state_bytes`. */
  decisions_mb: withDefault(PositiveInt, 4),
  /** A tool's arguments (a URL and a few options). */
  tools_mb: withDefault(PositiveInt, 1)
})
export type BodyLimitSettings = typeof BodyLimitSettings.Type

/**
 * The shape of a JSON body, checked while it is read and right after it is parsed, before any
 * schema sees it: no provider takes more, and each bound keeps a hostile body from holding the
 * event loop (escapes are what makes parsing and re-encoding a large string slow).
 */
export const JsonLimitSettings = Schema.Struct({
  /** Nesting of objects and arrays; a tool's JSON schema of 25 levels fits. */
  max_depth: withDefault(PositiveInt, 64),
  /** Keys of any one object (a tool schema's properties, `logit_bias`, `metadata`). */
  max_object_keys: withDefault(PositiveInt, 10_000),
  /** Items of any one array (`messages`, an embedding's `input`, a token array). */
  max_array_items: withDefault(PositiveInt, 100_000),
  /**
   * Objects and arrays in the whole body. \`JSON.parse\` runs on the event loop and objects are what
   * it is slowest to build (about 1 ms per 3,000 on a busy core); a long chat with tools has a few
   * thousand.
   */
  max_containers: withDefault(PositiveInt, 50_000),
  /** Values in the whole body (every item, key's value and the body itself): token arrays of 300,000 tokens fit. */
  max_values: withDefault(PositiveInt, 1_000_000),
  /** Backslash escapes in the whole body (`\n`, `\"`, `\u00e9`...): about 8 MB of escaped text. */
  max_escapes: withDefault(PositiveInt, 1_000_000)
})
export type JsonLimitSettings = typeof JsonLimitSettings.Type
