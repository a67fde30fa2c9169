import { argmax, confidence, expectedIndex } from "./DecisionProbabilities.ts"
import type { DecisionQuestion } from "./DecisionRequest.ts"
import type { DecisionMethod } from "./DecisionSettings.ts"

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/**
 * The labels the model answers with, in outcome order. Each is one token in the tokenizers of
 * OpenAI (o200k, cl100k), Gemini and Claude, alone and after a space, so a one-token answer is
 * a whole label and its log-probability is the outcome's: "Yes"/"No" for yes/no; capital
 * letters for options (option keys are free text and often many tokens); the digits 0-9 for
 * levels, which keep the order of the scale in view, and stop at 9 because some tokenizers
 * (Gemini's) split longer numbers into digits.
 */
export const labelsFor = (question: DecisionQuestion): ReadonlyArray<string> => {
  switch (question.type) {
    case "noul":
      return ["Yes", "No"]
    case "choice":
      return question.options.map((_, i) => letters[i]!)
    case "score":
      return question.levels.map((_, i) => String(i))
  }
}

export interface NoulAnswer {
  readonly type: "noul"
  /** The probability of yes. */
  readonly noul: number
  readonly method: DecisionMethod
}
export interface ChoiceAnswer {
  readonly type: "choice"
  readonly choice: string
  readonly probabilities: Readonly<Record<string, number>>
  readonly confidence: number
  readonly method: DecisionMethod
}
export interface ScoreAnswer {
  readonly type: "score"
  readonly score: number
  /** Per level, keyed by index ("0" is the lowest). */
  readonly probabilities: Readonly<Record<string, number>>
  readonly legend: Readonly<Record<string, string>>
  readonly confidence: number
  readonly method: DecisionMethod
}
export type DecisionAnswer = NoulAnswer | ChoiceAnswer | ScoreAnswer

/** The answer of spec 4.6 for a distribution over the question's outcomes (in `labelsFor` order). */
export const answerOf = (question: DecisionQuestion, distribution: ReadonlyArray<number>, method: DecisionMethod): DecisionAnswer => {
  switch (question.type) {
    case "noul":
      return { type: "noul", noul: distribution[0]!, method }
    case "choice":
      return {
        type: "choice",
        choice: question.options[argmax(distribution)]!.key,
        probabilities: Object.fromEntries(question.options.map((o, i) => [o.key, distribution[i]!])),
        confidence: confidence(distribution),
        method
      }
    case "score":
      return {
        type: "score",
        score: expectedIndex(distribution),
        probabilities: Object.fromEntries(distribution.map((p, i) => [String(i), p])),
        legend: Object.fromEntries(question.levels.map((text, i) => [String(i), text])),
        confidence: confidence(distribution),
        method
      }
  }
}

/** Input tokens are billed, output tokens only reported (spec 8). */
export interface DecisionUsageWire {
  readonly input_tokens: number
  readonly output_tokens: number
  /** Input tokens served from the provider's prompt cache: the state after its first call. */
  readonly input_tokens_details: { readonly cached_tokens: number }
}

export interface DecisionResponse {
  readonly id: string
  readonly model: string
  readonly answers: Readonly<Record<string, DecisionAnswer>>
  readonly usage: DecisionUsageWire
}
