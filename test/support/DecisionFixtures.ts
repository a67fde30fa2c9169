import { anthropicMessage } from "./AnthropicFixtures.ts"
import { openAiCompletion } from "./OpenAiFixtures.ts"

/**
 * Upstream replies for decisions: one generated token with its top alternatives, in each
 * provider's real wire format. A scripted distribution is a list of [token, probability].
 */
export type Scripted = ReadonlyArray<readonly [string, number]>

const utf8 = new TextEncoder()
const entry = ([token, p]: readonly [string, number]) => ({ token, logprob: Math.log(p), bytes: Array.from(utf8.encode(token)) })

/**
 * OpenAI chat completion with `logprobs.content`: the most likely token is the one generated.
 * @see https://platform.openai.com/docs/api-reference/chat/object (choices[].logprobs)
 */
export const openAiLogprobs = (top: Scripted, usage: { prompt: number; cached?: number; completion?: number } = { prompt: 100 }) => {
  const base = openAiCompletion({
    content: top[0]?.[0] ?? "",
    finish: "length",
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion ?? 1,
      total_tokens: usage.prompt + (usage.completion ?? 1),
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 }
    }
  })
  const choice = base.choices[0]!
  return {
    ...base,
    choices: [{ ...choice, logprobs: top.length === 0 ? null : { content: [{ ...entry(top[0]!), top_logprobs: top.map(entry) }], refusal: null } }]
  }
}

/**
 * Gemini `GenerateContentResponse` with `logprobsResult`: the chosen token and the step's top
 * candidates (Gemini's own lists need not contain the chosen token; here they do).
 * @see https://ai.google.dev/api/generate-content#LogprobsResult
 */
export const geminiLogprobs = (top: Scripted, usage: { prompt: number; cached?: number } = { prompt: 100 }) => {
  const candidate = (item: readonly [string, number]) => ({ token: item[0], tokenId: 1000, logProbability: Math.log(item[1]) })
  return {
    candidates: [
      {
        content: { parts: [{ text: top[0]?.[0] ?? "" }], role: "model" },
        finishReason: "MAX_TOKENS",
        index: 0,
        ...(top.length === 0
          ? {}
          : { logprobsResult: { topCandidates: [{ candidates: top.map(candidate) }], chosenCandidates: [candidate(top[0]!)], logProbabilitySum: Math.log(top[0]![1]) } })
      }
    ],
    usageMetadata: {
      promptTokenCount: usage.prompt,
      candidatesTokenCount: 1,
      totalTokenCount: usage.prompt + 1,
      ...(usage.cached === undefined ? {} : { cachedContentTokenCount: usage.cached }),
      promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.prompt }]
    },
    modelVersion: "gemini-2.0-flash",
    responseId: "mK2kaPbWJ6Tz7M8Pt8SRsQc"
  }
}

/** An Anthropic message whose text is one sampled label; cache reads and writes as the API reports them. */
export const anthropicLabel = (text: string, usage: { input: number; cacheRead?: number; cacheWrite?: number }) =>
  anthropicMessage({
    content: [{ type: "text", text }],
    stopReason: "max_tokens",
    usage: {
      input_tokens: usage.input,
      cache_read_input_tokens: usage.cacheRead ?? 0,
      cache_creation_input_tokens: usage.cacheWrite ?? 0,
      output_tokens: 1
    }
  })

/** The question a recorded chat request asks: the last user message's text (OpenAI wire). */
export const openAiQuestion = (body: any): string => body.messages.at(-1).content as string
/** The same for Gemini: the last part of the last content. */
export const geminiQuestion = (body: any): string => body.contents.at(-1).parts.at(-1).text as string
/** The same for Anthropic: the last block of the last turn. */
export const anthropicQuestion = (body: any): string => body.messages.at(-1).content.at(-1).text as string
