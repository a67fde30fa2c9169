import type { ChoiceLogprobs, FinishReason } from "./ChatCompletion.ts"
import type { ReasoningDetail } from "./ReasoningDetail.ts"
import type { Usage } from "./Usage.ts"

/**
 * What provider stream codecs emit: provider-neutral facts, in the order the provider sent
 * them. The normaliser (src/Streams/ChunkNormaliser.ts) turns them into the exact chunk
 * sequence of spec 6.3, whatever order or duplication the provider used.
 */
export type ChatStreamEvent =
  | { readonly _tag: "TextDelta"; readonly choice: number; readonly text: string; readonly logprobs?: ChoiceLogprobs }
  | { readonly _tag: "ReasoningDelta"; readonly choice: number; readonly text: string }
  /** The reasoning streamed since the last one is complete and signed (see ReasoningDetail.ts). */
  | { readonly _tag: "ReasoningSigned"; readonly choice: number; readonly detail: ReasoningDetail }
  | { readonly _tag: "RefusalDelta"; readonly choice: number; readonly text: string }
  /** A new tool call; `toolIndex` is its position among this choice's calls. */
  | {
    readonly _tag: "ToolCallStart"
    readonly choice: number
    readonly toolIndex: number
    readonly id: string
    readonly name: string
  }
  | { readonly _tag: "ToolCallDelta"; readonly choice: number; readonly toolIndex: number; readonly arguments: string }
  | { readonly _tag: "Finish"; readonly choice: number; readonly reason: FinishReason }
  /** Cumulative usage so far; the last one wins. */
  | { readonly _tag: "Usage"; readonly usage: Usage }
  /**
   * An upstream event of a native call (see `ChatRequest.native`), for the client as it came:
   * the SSE event name and data; `json` is the data already parsed, when the adapter had to
   * read it anyway (its dialect's encoder then needs no second parse). The neutral events read
   * from it follow it, for billing and the commit point.
   */
  | {
    readonly _tag: "Native"
    readonly event: string
    readonly data: string
    readonly json?: Readonly<Record<string, unknown>>
  }

export const textDelta = (choice: number, text: string): ChatStreamEvent => ({ _tag: "TextDelta", choice, text })
export const finish = (choice: number, reason: FinishReason): ChatStreamEvent => ({ _tag: "Finish", choice, reason })
export const usageEvent = (usage: Usage): ChatStreamEvent => ({ _tag: "Usage", usage })
