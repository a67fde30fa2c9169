import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DecisionSettings } from "./DecisionSettings.ts"
import { GatewayError } from "./GatewayError.ts"
import { schemaErrorToGateway } from "./SchemaErrors.ts"

/** `POST /v1/decisions` (spec 4.6 and 2.9), validated. Questions keep the order of the body. */
export type DecisionState = string | Readonly<Record<string, unknown>> | ReadonlyArray<unknown>

export interface NoulQuestion {
  readonly type: "noul"
  readonly instructions: string
  /** What yes (`true`) and no (`false`) mean, when the caller said. */
  readonly criteria: { readonly true?: string; readonly false?: string }
}
export interface ChoiceQuestion {
  readonly type: "choice"
  readonly instructions: string
  /** The options of `criteria`, in the order of the body. */
  readonly options: ReadonlyArray<{ readonly key: string; readonly description: string }>
}
export interface ScoreQuestion {
  readonly type: "score"
  readonly instructions: string
  /** Level descriptions, lowest first; a level's index is its score. */
  readonly levels: ReadonlyArray<string>
}
export type DecisionQuestion = NoulQuestion | ChoiceQuestion | ScoreQuestion
export type DecisionType = DecisionQuestion["type"]

export interface DecisionRequest {
  readonly model: string
  readonly state: DecisionState
  /** The state as the model reads it: a string as is, anything else as compact JSON. */
  readonly stateText: string
  readonly questions: ReadonlyArray<{ readonly id: string; readonly question: DecisionQuestion }>
}

const invalid = (param: string, detail: string): GatewayError => GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const NonBlank = Schema.String.check(Schema.isPattern(/\S/, { expected: "a non-empty string" }))
const Instructions = NonBlank

const NoulWire = Schema.Struct({
  type: Schema.Literal("noul"),
  instructions: Instructions,
  criteria: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ true: Schema.optionalKey(Schema.String), false: Schema.optionalKey(Schema.String) }))
  )
})
const ChoiceWire = Schema.Struct({
  type: Schema.Literal("choice"),
  instructions: Instructions,
  criteria: Schema.Record(Schema.String, Schema.String)
})
const ScoreWire = Schema.Struct({
  type: Schema.Literal("score"),
  instructions: Instructions,
  criteria: Schema.Array(NonBlank)
})

const strict = { onExcessProperty: "error" } as const
const decodeNoul = Schema.decodeUnknownEffect(NoulWire)
const decodeChoice = Schema.decodeUnknownEffect(ChoiceWire)
const decodeScore = Schema.decodeUnknownEffect(ScoreWire)
const types: ReadonlyArray<string> = ["noul", "choice", "score"]
const topLevel: ReadonlySet<string> = new Set(["model", "state", "questions"])

const decodeQuestion = (id: string, raw: unknown): Effect.Effect<DecisionQuestion, GatewayError> => {
  const at = `questions.${id}`
  if (!isObject(raw)) return Effect.fail(invalid(at, "expected a question object with 'type', 'instructions' and 'criteria'"))
  if (raw["type"] === undefined) return Effect.fail(invalid(`${at}.type`, "this field is required"))
  if (typeof raw["type"] !== "string" || !types.includes(raw["type"])) {
    return Effect.fail(invalid(`${at}.type`, "expected one of 'noul', 'choice', 'score'"))
  }
  const prefix = ["questions", id]
  const failed = (error: Schema.SchemaError) => {
    const gatewayError = schemaErrorToGateway(error, prefix)
    const param = gatewayError.reason._tag === "InvalidRequest" ? gatewayError.reason.param : undefined
    return param !== undefined && gatewayError.reason.message.endsWith("expected no excess property.")
      ? GatewayError.invalid(`Unrecognized field '${param}'.`, param, "unknown_parameter")
      : gatewayError
  }
  switch (raw["type"]) {
    case "noul":
      return Effect.mapBoth(decodeNoul(raw, strict), {
        onFailure: failed,
        onSuccess: (q): NoulQuestion => ({ type: "noul", instructions: q.instructions, criteria: q.criteria ?? {} })
      })
    case "choice":
      return Effect.flatMap(Effect.mapError(decodeChoice(raw, strict), failed), (q) => {
        const options = Object.entries(q.criteria).map(([key, description]) => ({ key, description }))
        const blank = options.find((o) => !/\S/.test(o.key))
        if (blank !== undefined) return Effect.fail(invalid(`${at}.criteria`, "an option key must not be blank"))
        if (options.length < 2) return Effect.fail(invalid(`${at}.criteria`, `expected at least 2 options, got ${options.length}`))
        return Effect.succeed<ChoiceQuestion>({ type: "choice", instructions: q.instructions, options })
      })
    default:
      return Effect.flatMap(Effect.mapError(decodeScore(raw, strict), failed), (q) =>
        q.criteria.length < 2
          ? Effect.fail(invalid(`${at}.criteria`, `expected at least 2 levels, lowest first, got ${q.criteria.length}`))
          : Effect.succeed<ScoreQuestion>({ type: "score", instructions: q.instructions, levels: q.criteria }))
  }
}

/**
 * Decodes a decisions body. Every violation is a 400 naming its path, down to the question
 * (`questions.tone.criteria`); unknown fields are refused, since the gateway builds the upstream
 * calls itself and would otherwise drop them silently.
 */
export const decodeDecisionRequest = (body: Record<string, unknown>): Effect.Effect<DecisionRequest, GatewayError> => {
  for (const key of Object.keys(body)) {
    if (!topLevel.has(key)) return Effect.fail(GatewayError.invalid(`Unrecognized request argument supplied: '${key}'.`, key, "unknown_parameter"))
  }
  const model = body["model"]
  if (model === undefined) return Effect.fail(invalid("model", "this field is required"))
  if (typeof model !== "string" || model === "") return Effect.fail(invalid("model", "expected a non-empty string"))
  const state = body["state"]
  if (state === undefined) return Effect.fail(invalid("state", "this field is required"))
  if (typeof state === "string") {
    if (!/\S/.test(state)) return Effect.fail(invalid("state", "the state must not be empty"))
  } else if (typeof state !== "object" || state === null) {
    return Effect.fail(invalid("state", "expected a string, an object or an array"))
  }
  const questions = body["questions"]
  if (questions === undefined) return Effect.fail(invalid("questions", "this field is required"))
  if (!isObject(questions)) return Effect.fail(invalid("questions", "expected an object of question id to question"))
  const entries = Object.entries(questions)
  if (entries.length === 0) return Effect.fail(invalid("questions", "expected at least one question"))
  const blank = entries.find(([id]) => !/\S/.test(id))
  if (blank !== undefined) return Effect.fail(invalid("questions", "a question id must not be blank"))
  return Effect.map(
    Effect.forEach(entries, ([id, raw]) => Effect.map(decodeQuestion(id, raw), (question) => ({ id, question }))),
    (decoded): DecisionRequest => ({
      model,
      state: state as DecisionState,
      stateText: typeof state === "string" ? state : JSON.stringify(state),
      questions: decoded
    })
  )
}

const utf8 = new TextEncoder()

/** The configured limits (README, `decisions.*`); each breach is a 400 naming its path. */
export const checkDecisionLimits = (request: DecisionRequest, settings: DecisionSettings): GatewayError | undefined => {
  if (request.questions.length > settings.max_questions) {
    return invalid("questions", `expected at most ${settings.max_questions} questions, got ${request.questions.length} (decisions.max_questions)`)
  }
  for (const { id, question } of request.questions) {
    if (question.type === "choice" && question.options.length > settings.max_options) {
      return invalid(`questions.${id}.criteria`, `expected at most ${settings.max_options} options, got ${question.options.length} (decisions.max_options)`)
    }
    if (question.type === "score" && question.levels.length > settings.max_levels) {
      return invalid(`questions.${id}.criteria`, `expected at most ${settings.max_levels} levels, got ${question.levels.length} (decisions.max_levels)`)
    }
  }
  // Only a state that could be too long is measured: UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (request.stateText.length * 3 > settings.max_state_bytes) {
    const bytes = utf8.encode(request.stateText).length
    if (bytes > settings.max_state_bytes) {
      return invalid("state", `the state is ${bytes} bytes; at most ${settings.max_state_bytes} are allowed (decisions.max_state_bytes)`)
    }
  }
  return undefined
}
