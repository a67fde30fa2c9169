import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
const between = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/**
 * Hard bounds of the label alphabets (see `DecisionLabels.ts`): options are the letters A to Z,
 * levels the digits 0 to 9, because those are single tokens in every tokenizer the gateway's
 * providers use. A configured limit cannot go past them.
 */
export const maxOptionLabels = 26
export const maxLevelLabels = 10

/**
 * How a decision model turns its answer into probabilities: from the label tokens'
 * log-probabilities of one call, or from the frequencies of the labels over `samples` calls.
 * A field of the model in gateway.yaml (`decision_method`), shown in `GET /v1/models`.
 */
export const DecisionMethod = Schema.Literals(["logprobs", "sampled"])
export type DecisionMethod = typeof DecisionMethod.Type

/** The `decisions` block of gateway.yaml: limits of `POST /v1/decisions` and how it calls upstream. */
export const DecisionSettings = Schema.Struct({
  /** Questions per request. */
  max_questions: withDefault(between(1, 256), 32),
  /** Options of one `choice` question. */
  max_options: withDefault(between(2, maxOptionLabels), maxOptionLabels),
  /** Levels of one `score` question. */
  max_levels: withDefault(between(2, maxLevelLabels), maxLevelLabels),
  /** The state as sent upstream (a string as is, anything else as compact JSON), in UTF-8 bytes. */
  max_state_bytes: withDefault(Schema.Int.check(Schema.isGreaterThan(0)), 262_144),
  /** Upstream calls of one request in flight at once. */
  concurrency: withDefault(between(1, 256), 8),
  /** Samples per question for models without token probabilities (method `sampled`). */
  samples: withDefault(between(1, 64), 8)
})
export type DecisionSettings = typeof DecisionSettings.Type

export const defaultDecisionSettings: DecisionSettings = Schema.decodeUnknownSync(DecisionSettings)({})
