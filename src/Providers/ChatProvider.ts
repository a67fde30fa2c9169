import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { ChatCompletion } from "../Domain/ChatCompletion.ts"
import type { ChatRequest, NativeRequest } from "../Domain/ChatRequest.ts"
import type { ChatStreamEvent } from "../Domain/ChatStreamEvent.ts"
import type { ModelConfig } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { Deadline } from "../Streams/Deadline.ts"

/** Which upstream model serves the call, and what the catalogue says about it. */
export interface ChatTarget {
  readonly upstreamModel: string
  readonly model: ModelConfig
}

/**
 * The port every chat provider implements. Requests arrive validated and capability-checked;
 * adapters translate, call, and translate back. Failures are GatewayErrors whose reason says
 * whether a retry or another provider could help.
 */
export interface ChatProvider {
  readonly id: string
  /**
   * With `deadline` (the request's routing deadline, which the router always passes), the call
   * fails with the deadline's error once it passes: the adapters end their upstream exchange on
   * its timer, so the router runs no watcher per attempt.
   */
  readonly complete: (request: ChatRequest, target: ChatTarget, deadline?: Deadline) => Effect.Effect<ChatCompletion, GatewayError>
  /** Lazy: nothing is sent until the stream is run; interrupting it aborts the upstream request. */
  readonly stream: (request: ChatRequest, target: ChatTarget) => Stream.Stream<ChatStreamEvent, GatewayError>
  /** The provider's own count of a request's input tokens in its API, where it has one (Anthropic). */
  readonly countTokens?: (native: NativeRequest, target: ChatTarget) => Effect.Effect<number, GatewayError>
}
