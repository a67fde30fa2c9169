import type { ChatMessage } from "./ChatMessage.ts"
import type { ChatRequest } from "./ChatRequest.ts"
import type { DecisionQuestion, DecisionRequest } from "./DecisionRequest.ts"
import type { DecisionMethod } from "./DecisionSettings.ts"
import { type StateReference, stateReferences } from "./StateReferences.ts"

/**
 * The largest `top_logprobs` the providers accept, and the spec's own bound (part 8): OpenAI's
 * chat API takes 0 to 20, Gemini's `generationConfig.logprobs` 0 to 20.
 * @see https://platform.openai.com/docs/api-reference/chat/create (top_logprobs)
 * @see https://ai.google.dev/api/generate-content#v1beta.GenerationConfig (logprobs)
 */
export const maxTopLogprobs = 20

/** The same for every question and every request, so it is the start of every cached prefix. */
export const reviewerInstructions = [
  "You are a careful reviewer. The user gives you a state, the content to evaluate, between <state> and </state>,",
  "then one question about it. The question lists the answers it accepts, each with a label.",
  "Reply with exactly one of those labels, written exactly as shown, and nothing else."
].join(" ")

/**
 * The messages every call of a request starts with: the reviewer instructions, then the state.
 * Identical bytes for every question and sample, so the provider's prompt cache serves the
 * state after the first call.
 */
export const decisionPrefix = (stateText: string): ReadonlyArray<ChatMessage> => [
  { role: "system", content: reviewerInstructions },
  { role: "user", content: `<state>\n${stateText}\n</state>` }
]

const listed = (labels: ReadonlyArray<string>): string =>
  labels.length <= 2 ? labels.join(" or ") : `${labels.slice(0, -1).join(", ")} or ${labels.at(-1)!}`

const referenced = (references: ReadonlyArray<StateReference>): string =>
  references.length === 0
    ? ""
    : `\n\nFields of the state named in the question:\n${references.map((r) => `${r.path} = ${JSON.stringify(r.value)}`).join("\n")}`

/** The question after the prefix: instructions, the labelled answers, the fields it names. */
export const questionText = (question: DecisionQuestion, labels: ReadonlyArray<string>, references: ReadonlyArray<StateReference>): string => {
  const head = `Question: ${question.instructions}`
  switch (question.type) {
    case "noul": {
      const meaning = [
        ...(question.criteria.true === undefined ? [] : [`Yes means: ${question.criteria.true}`]),
        ...(question.criteria.false === undefined ? [] : [`No means: ${question.criteria.false}`])
      ]
      return `${head}${meaning.length === 0 ? "" : `\n\n${meaning.join("\n")}`}${referenced(references)}\n\nAnswer ${listed(labels)}.`
    }
    case "choice": {
      const options = question.options.map((o, i) => `${labels[i]!}. ${o.key}${o.description === "" ? "" : `: ${o.description}`}`)
      return `${head}\n\nOptions:\n${options.join("\n")}${referenced(references)}\n\nAnswer with the letter of one option: ${listed(labels)}.`
    }
    case "score": {
      const levels = question.levels.map((text, i) => `${labels[i]!}: ${text}`)
      return `${head}\n\nLevels, lowest first:\n${levels.join("\n")}${referenced(references)}\n\nAnswer with the number of one level: ${listed(labels)}.`
    }
  }
}

export interface DecisionCall {
  readonly method: DecisionMethod
  /** Whether the model reasons before it answers (catalogue `capabilities.reasoning`). */
  readonly reasoning: boolean
}

/**
 * The upstream chat request for one question (or one sample of it). With `logprobs`: one token
 * and its top alternatives. Sampled: at temperature 1, one token unless the model reasons
 * first, when the provider's own output limit applies so the reasoning can finish.
 */
export const decisionChatRequest = (
  request: DecisionRequest,
  prefix: ReadonlyArray<ChatMessage>,
  question: DecisionQuestion,
  labels: ReadonlyArray<string>,
  call: DecisionCall
): ChatRequest => {
  const messages: ReadonlyArray<ChatMessage> = [
    ...prefix,
    { role: "user", content: questionText(question, labels, stateReferences(request.state, question.instructions)) }
  ]
  const base = { model: request.model, messages, stream: false, includeUsage: false, n: 1, extra: {}, temperature: 1, sharedPrefix: prefix.length }
  if (call.method === "logprobs") return { ...base, max_completion_tokens: 1, logprobs: true, top_logprobs: maxTopLogprobs }
  return call.reasoning ? base : { ...base, max_completion_tokens: 1 }
}
