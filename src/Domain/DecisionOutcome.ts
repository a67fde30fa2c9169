import type { ChatCompletion } from "./ChatCompletion.ts"
import { distributionFromLogprobs, distributionFromSamples, type TopToken } from "./DecisionProbabilities.ts"

/**
 * What the upstream answers of one question come to: a distribution over its outcomes, or why
 * there is none. `refused`: the provider's content filter stopped every answer (the client's
 * content, a 400); `unusable`: the upstream answered, but not with what was asked (a 502),
 * because a made-up distribution is never given in place of the model's.
 */
export type DecisionOutcome =
  | { readonly _tag: "Distribution"; readonly distribution: ReadonlyArray<number> }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Unusable"; readonly problem: string }

const refusedBy = (completion: ChatCompletion): boolean => {
  const choice = completion.choices[0]
  return choice === undefined || choice.finish_reason === "content_filter" || (choice.message.content === null && choice.message.refusal !== null)
}

/** The candidates of the first generated token: the chosen one and the upstream's top list. */
export const firstTokenCandidates = (completion: ChatCompletion): ReadonlyArray<TopToken> | undefined => {
  const first = completion.choices[0]?.logprobs?.content?.[0]
  if (first === undefined) return undefined
  return [{ token: first.token, logprob: first.logprob }, ...first.top_logprobs]
}

/** One call asked for the first token's log-probabilities. */
export const outcomeFromLogprobs = (labels: ReadonlyArray<string>, completion: ChatCompletion): DecisionOutcome => {
  if (refusedBy(completion)) return { _tag: "Refused" }
  const candidates = firstTokenCandidates(completion)
  if (candidates === undefined) return { _tag: "Unusable", problem: "returned no token probabilities" }
  const distribution = distributionFromLogprobs(labels, candidates)
  if (distribution === undefined) {
    const seen = candidates.slice(0, 5).map((c) => JSON.stringify(c.token)).join(", ")
    return { _tag: "Unusable", problem: `gave none of the labels (${labels.join(", ")}) among its most likely first tokens (${seen}, ...)` }
  }
  return { _tag: "Distribution", distribution }
}

/** Several calls sampled one answer each; answers that are not a label are left out. */
export const outcomeFromSamples = (labels: ReadonlyArray<string>, completions: ReadonlyArray<ChatCompletion>): DecisionOutcome => {
  const answered = completions.filter((c) => !refusedBy(c))
  if (answered.length === 0) return { _tag: "Refused" }
  const texts = answered.map((c) => c.choices[0]?.message.content ?? "")
  const distribution = distributionFromSamples(labels, texts)
  if (distribution === undefined) {
    const seen = texts.slice(0, 3).map((t) => JSON.stringify(t.slice(0, 40))).join(", ")
    return { _tag: "Unusable", problem: `answered none of ${completions.length} samples with a label (${labels.join(", ")}); it wrote ${seen}` }
  }
  return { _tag: "Distribution", distribution }
}
