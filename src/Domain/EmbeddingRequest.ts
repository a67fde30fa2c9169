import * as Schema from "effect/Schema"
import type { JsonObject } from "./ChatTool.ts"

const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/** Spec part 8: one request embeds at most this many inputs. */
export const maxEmbeddingInputs = 2048

export const EmbeddingFormat = Schema.Literals(["float", "base64"])
export type EmbeddingFormat = typeof EmbeddingFormat.Type

/**
 * The top level of `POST /v1/embeddings` (spec 4.4) except `input`, which is checked by hand:
 * a batch can hold millions of token ids, and one pass over plain arrays is far cheaper than a
 * schema union, whose failure would not say which of the four shapes was meant anyway.
 */
export const EmbeddingRequestShell = Schema.Struct({
  model: Schema.NonEmptyString,
  input: Schema.Unknown,
  dimensions: nullable(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  encoding_format: nullable(EmbeddingFormat),
  user: nullable(Schema.String),
  safety_identifier: nullable(Schema.String)
})
export type EmbeddingRequestShell = typeof EmbeddingRequestShell.Type

/** The inputs of one request, all of one kind; a single string or token array is a batch of one. */
export type EmbeddingInput =
  | { readonly _tag: "Text"; readonly texts: ReadonlyArray<string> }
  | { readonly _tag: "Tokens"; readonly tokens: ReadonlyArray<ReadonlyArray<number>> }

/**
 * A validated embeddings request with aliases resolved (`safety_identifier` is `user`) and
 * nulls absent. `extra` holds top-level fields this gateway does not model; OpenAI-style
 * upstreams receive them unchanged, other providers refuse them by name.
 */
export interface EmbeddingRequest {
  readonly model: string
  readonly input: EmbeddingInput
  readonly dimensions?: number
  readonly encodingFormat: EmbeddingFormat
  readonly user?: string
  readonly extra: Readonly<JsonObject>
}

export const inputCount = (input: EmbeddingInput): number => (input._tag === "Text" ? input.texts.length : input.tokens.length)
