import type { ChoiceLogprobs, TokenLogprob } from "../../Domain/ChatCompletion.ts"
import { arr, isRecord, num, rec, str } from "./GeminiWire.ts"

const utf8 = new TextEncoder()

const entry = (candidate: unknown) => {
  const c = rec(candidate)
  const token = str(c["token"]) ?? ""
  return { token, logprob: num(c["logProbability"]) ?? 0, bytes: Array.from(utf8.encode(token)) }
}

/**
 * `logprobsResult` -> the chat wire's `logprobs.content`: one entry per decoding step, the chosen
 * token with the step's top alternatives. `undefined` when the candidate has none.
 * @see https://ai.google.dev/api/generate-content#LogprobsResult
 */
export const logprobsFromGemini = (candidate: unknown): ChoiceLogprobs | undefined => {
  const result = rec(candidate)["logprobsResult"]
  if (!isRecord(result)) return undefined
  const top = arr(result["topCandidates"])
  const content = arr(result["chosenCandidates"]).map((chosen, step): TokenLogprob => ({
    ...entry(chosen),
    top_logprobs: arr(rec(top[step])["candidates"]).map(entry)
  }))
  return { content }
}
