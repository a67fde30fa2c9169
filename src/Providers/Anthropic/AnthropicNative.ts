import type { NativeRequest } from "../../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ChatTarget } from "../ChatProvider.ts"
import {
  type AnthropicStreamState,
  type AnthropicStreamStep,
  anthropicStreamStep,
  initialAnthropicStreamState
} from "./AnthropicStream.ts"

/**
 * A Messages API request passed natively: the client's own body, with only `model` set to the
 * deployment's upstream model and `stream` to the call's kind. Nothing is translated, so
 * thinking signatures, cache control, server tools and citations reach Anthropic as sent, and
 * its answer reaches the client as it came (the Messages dialect's encoder passes it on).
 * @see https://platform.claude.com/docs/en/api/messages/create
 */
export const nativeMessagesBody = (native: NativeRequest, target: ChatTarget, stream: boolean): string =>
  JSON.stringify({ ...native.body, model: target.upstreamModel, stream })

/** Fields of a Messages body the count endpoint does not take. */
const notCounted: ReadonlySet<string> = new Set(["max_tokens", "stream", "stop_sequences", "temperature", "top_p", "top_k", "metadata", "service_tier"])

/** A count_tokens body: the client's request without the generation fields, for the deployment's model. */
export const countTokensBody = (native: NativeRequest, target: ChatTarget): Record<string, unknown> => {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(native.body)) if (!notCounted.has(key)) body[key] = value
  return { ...body, model: target.upstreamModel }
}

export const isNativeMessages = (native: NativeRequest | undefined): native is NativeRequest => native?.api === "anthropic-messages"

export interface NativeStreamState {
  readonly codec: AnthropicStreamState
  /** Events held until the first content: until then the router may still take another route unseen. */
  held: Array<ChatStreamEvent> | undefined
}

export const initialNativeStreamState = (): NativeStreamState => ({ codec: initialAnthropicStreamState(), held: [] })

const commits = (event: ChatStreamEvent): boolean =>
  event._tag === "TextDelta" || event._tag === "ReasoningDelta" || event._tag === "RefusalDelta" ||
  event._tag === "ToolCallStart" || event._tag === "Finish"

/**
 * One upstream event of a native stream: the event as it came (for the client), then the neutral
 * events the same codec reads from it (usage for billing, content for the commit point).
 * `message_start` and anything before the first content are held and go out with it, so an
 * attempt that fails before content leaves nothing the client saw; `message_stop` goes out too
 * and ends the stream.
 */
export const nativeStreamStep = (state: NativeStreamState, event: string, data: string): AnthropicStreamStep => {
  const step = anthropicStreamStep(state.codec, event, data)
  if (step._tag !== "Events" && step._tag !== "Done") return step
  const now: Array<ChatStreamEvent> = [{ _tag: "Native", event, data }, ...(step._tag === "Events" ? step.events : [])]
  if (state.held !== undefined) {
    state.held.push(...now)
    if (step._tag !== "Done" && !now.some(commits)) return { _tag: "Events", events: [] }
    const out = state.held
    state.held = undefined
    return step._tag === "Done" ? { _tag: "Done", events: out } : { _tag: "Events", events: out }
  }
  return step._tag === "Done" ? { _tag: "Done", events: now } : { _tag: "Events", events: now }
}
