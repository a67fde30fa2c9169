import type { FinishReason } from "../../Domain/ChatCompletion.ts"
import type { Usage } from "../../Domain/Usage.ts"
import { arr, filteredFinishReasons, isRecord, num, rec, str } from "./GeminiWire.ts"

/**
 * `usageMetadata` -> usage. `promptTokenCount` already includes the cached part; tool-use
 * prompt tokens (results of server-side tools) are billed as input too, so they join the
 * prompt. Thinking is generated output, so it joins the completion and is also reported as
 * reasoning. Gemini reports no cache writes (implicit caching has none; explicit caches are
 * created and billed outside generateContent), so `cacheWriteTokens` stays absent.
 * In streams every chunk carries the running totals: the last one is the answer.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export const usageFromGemini = (value: unknown): Usage => {
  const u = rec(value)
  const thoughts = num(u["thoughtsTokenCount"])
  const cached = num(u["cachedContentTokenCount"])
  const audio = arr(u["promptTokensDetails"])
    .filter(isRecord)
    .filter((d) => d["modality"] === "AUDIO")
    .reduce((sum, d) => sum + (num(d["tokenCount"]) ?? 0), 0)
  return {
    promptTokens: (num(u["promptTokenCount"]) ?? 0) + (num(u["toolUsePromptTokenCount"]) ?? 0),
    completionTokens: (num(u["candidatesTokenCount"]) ?? 0) + (thoughts ?? 0),
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
    ...(audio === 0 ? {} : { audioPromptTokens: audio })
  }
}

/**
 * `finishReason` -> finish reason. STOP with function calls in the turn becomes `tool_calls`
 * (done by the callers and the stream normaliser, which see the whole turn). Reasons that end
 * the turn for another cause (OTHER, LANGUAGE, a malformed call) are a plain stop.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export const finishFromGemini = (value: unknown): FinishReason => {
  const reason = str(value)
  if (reason === "MAX_TOKENS") return "length"
  if (reason !== undefined && filteredFinishReasons.has(reason)) return "content_filter"
  return "stop"
}

/**
 * A prompt Gemini refused to answer: `promptFeedback.blockReason` and no candidates. The text
 * becomes the choice's refusal, so the client sees why the answer is empty.
 * @see https://ai.google.dev/api/generate-content#PromptFeedback
 */
export const promptBlockMessage = (response: unknown): string | undefined => {
  const feedback = rec(rec(response)["promptFeedback"])
  const reason = str(feedback["blockReason"])
  if (reason === undefined) return undefined
  return str(feedback["blockReasonMessage"]) ?? `The prompt was blocked by the content filter (${reason}).`
}
