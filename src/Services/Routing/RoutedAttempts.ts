import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { UsageAttempt } from "../../Domain/UsageEvent.ts"

/** Which route served the request: the public model actually used and its provider. */
export interface Served {
  readonly model: string
  readonly provider: string
  readonly upstreamModel: string
}

/** Events of a routed stream: a `Served` marker opens every attempt, so the model is known at commit. */
export type RoutedEvent = ChatStreamEvent | { readonly _tag: "Served"; readonly served: Served }

/** Collects every provider call of one request, for the usage event and response headers. */
export class AttemptLog {
  readonly attempts: Array<UsageAttempt> = []
  /** Calls begun, the one in flight included (a stream's serving attempt is logged only at its end). */
  started = 0
  /** Providers of routes the plan found cooling down (the planner's list, shared). */
  cooledDown: ReadonlyArray<string> = []
}

/** An event that reaches the client: after it a failure can no longer fall back (issue: streams commit). */
export const commits = (event: ChatStreamEvent): boolean =>
  event._tag === "TextDelta" ||
  event._tag === "ReasoningDelta" ||
  event._tag === "RefusalDelta" ||
  event._tag === "ToolCallStart" ||
  event._tag === "Finish"
