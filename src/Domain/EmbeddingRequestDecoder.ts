import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { JsonObject } from "./ChatTool.ts"
import { type EmbeddingInput, type EmbeddingRequest, EmbeddingRequestShell, maxEmbeddingInputs } from "./EmbeddingRequest.ts"
import { GatewayError } from "./GatewayError.ts"
import { schemaErrorToGateway } from "./SchemaErrors.ts"

const invalid = (param: string, detail: string): GatewayError =>
  GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param)

const isTokenId = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** The index of the first element that is not a token id, or -1. */
const firstNonToken = (values: ReadonlyArray<unknown>): number => {
  for (let i = 0; i < values.length; i++) if (!isTokenId(values[i])) return i
  return -1
}

const expectedShapes = "expected a string, an array of strings, an array of token ids or an array of token-id arrays"

/**
 * `input` in one of its four shapes (spec 4.4): a string, strings, one token array, or token
 * arrays. Every input is non-empty (OpenAI refuses empty strings too) and all are of one kind;
 * a batch holds at most 2048 inputs. Errors name the offending element, e.g. `input[3]`.
 */
export const decodeEmbeddingInput = (raw: unknown): EmbeddingInput | GatewayError => {
  if (raw === undefined || raw === null) return invalid("input", "this field is required")
  if (typeof raw === "string") {
    return raw === "" ? invalid("input", "the input must not be an empty string") : { _tag: "Text", texts: [raw] }
  }
  if (!Array.isArray(raw)) return invalid("input", expectedShapes)
  if (raw.length === 0) return invalid("input", "expected at least one input")
  const first: unknown = raw[0]
  if (typeof first === "number") {
    // One token array is one input, whatever its length; the model's context bounds it.
    const bad = firstNonToken(raw)
    return bad === -1 ? { _tag: "Tokens", tokens: [raw as Array<number>] } : invalid(`input[${bad}]`, "expected a token id (an integer of 0 or more)")
  }
  if (raw.length > maxEmbeddingInputs) {
    return invalid("input", `expected at most ${maxEmbeddingInputs} inputs, got ${raw.length}`)
  }
  if (typeof first === "string") {
    for (let i = 0; i < raw.length; i++) {
      const text: unknown = raw[i]
      if (typeof text !== "string") return invalid(`input[${i}]`, "expected a string, like every other input")
      if (text === "") return invalid(`input[${i}]`, "an input must not be an empty string")
    }
    return { _tag: "Text", texts: raw as Array<string> }
  }
  if (Array.isArray(first)) {
    for (let i = 0; i < raw.length; i++) {
      const tokens: unknown = raw[i]
      if (!Array.isArray(tokens)) return invalid(`input[${i}]`, "expected an array of token ids, like every other input")
      if (tokens.length === 0) return invalid(`input[${i}]`, "expected at least one token id")
      const bad = firstNonToken(tokens)
      if (bad !== -1) return invalid(`input[${i}][${bad}]`, "expected a token id (an integer of 0 or more)")
    }
    return { _tag: "Tokens", tokens: raw as Array<Array<number>> }
  }
  return invalid("input[0]", "expected a string, a token id or an array of token ids")
}

const decodeShell = Schema.decodeUnknownEffect(EmbeddingRequestShell)
const knownFields: ReadonlySet<string> = new Set(Object.keys(EmbeddingRequestShell.fields))

/** Decodes and validates an embeddings request body (spec 4.4), naming the field of every violation. */
export const decodeEmbeddingRequest = (body: Record<string, unknown>): Effect.Effect<EmbeddingRequest, GatewayError> =>
  Effect.flatMap(Effect.mapError(decodeShell(body), (error) => schemaErrorToGateway(error)), (shell) => {
    const input = decodeEmbeddingInput(shell.input)
    if (input instanceof GatewayError) return Effect.fail(input)
    const extra: Record<string, unknown> = {}
    for (const key in body) if (!knownFields.has(key)) extra[key] = body[key]
    const user = shell.user ?? shell.safety_identifier ?? undefined
    return Effect.succeed({
      model: shell.model,
      input,
      encodingFormat: shell.encoding_format ?? "float",
      extra: extra as JsonObject,
      ...(shell.dimensions == null ? {} : { dimensions: shell.dimensions }),
      ...(user === undefined ? {} : { user })
    } satisfies EmbeddingRequest)
  })
