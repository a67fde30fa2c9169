import type { ToolCall } from "./ChatTool.ts"
import type { ReasoningDetail } from "./ReasoningDetail.ts"
import type { Usage } from "./Usage.ts"

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter"

/** Log probabilities pass through in the common convention's shape. */
export interface TokenLogprob {
  readonly token: string
  readonly logprob: number
  readonly bytes: ReadonlyArray<number> | null
  readonly top_logprobs: ReadonlyArray<{ readonly token: string; readonly logprob: number; readonly bytes: ReadonlyArray<number> | null }>
}
export interface ChoiceLogprobs {
  readonly content: ReadonlyArray<TokenLogprob> | null
  readonly refusal?: ReadonlyArray<TokenLogprob> | null
}

export interface CompletionMessage {
  readonly role: "assistant"
  readonly content: string | null
  readonly refusal: string | null
  readonly tool_calls?: ReadonlyArray<ToolCall>
  readonly reasoning_content?: string
  /** Reasoning the provider must get back as it issued it (signed thinking), in order. */
  readonly reasoning_details?: ReadonlyArray<ReasoningDetail>
}

export interface CompletionChoice {
  readonly index: number
  readonly message: CompletionMessage
  readonly finish_reason: FinishReason
  readonly logprobs: ChoiceLogprobs | null
  /** The stop sequence that ended the turn, where the provider says which (Anthropic). */
  readonly stopSequence?: string
}

/** What a provider returns for a non-streamed request; the route adds id, created and model. */
export interface ChatCompletion {
  readonly choices: ReadonlyArray<CompletionChoice>
  readonly usage: Usage
  readonly systemFingerprint?: string
  /** A native call's answer as the provider gave it (see `ChatRequest.native`), for its dialect to pass on. */
  readonly native?: Readonly<Record<string, unknown>>
}
