import type { ProviderConfig } from "../../src/Domain/GatewayConfig.ts"
import type { Reply, RecordedRequest } from "../support/FakeUpstream.ts"

/**
 * What one provider brings to the conformance battery: its config, and each scenario's reply
 * written in that provider's real wire format. The expectations are the same for every
 * provider (they are in ProviderConformance.test.ts), which is the point of the battery.
 */
export interface ProviderKit {
  readonly name: string
  readonly config: (baseUrl: string) => ProviderConfig
  /** Non-streamed text "Hello there!" with 19 prompt and 10 completion tokens. */
  readonly text: Reply
  /** Streamed text "Hel" + "lo", finishing with stop, usage 12 prompt / 3 completion. */
  readonly textStream: Reply
  /** Non-streamed call of `get_weather` with arguments {"city":"Paris"}, id in the reply. */
  readonly toolCall: Reply
  /** Streamed calls of `get_weather` {"city":"Paris"} then `get_time` {"tz":"CET"}, arguments in pieces. */
  readonly parallelToolStream: Reply
  /** Non-streamed content `{"answer":42}` for a json_schema request. */
  readonly jsonSchema: Reply
  /** Non-streamed text with 100 prompt tokens of which 60 read from cache and 20 written; 5 completion. */
  readonly cachedUsage: Reply
  /** False when the provider's usage has no cache-write count: the battery then requires it absent. */
  readonly reportsCacheWrites: boolean
  /** HTTP 429 with `retry-after: 7`. */
  readonly rateLimited: Reply
  /** HTTP 500 with the provider's error body. */
  readonly serverError: Reply
  /** HTTP 200 whose body is not JSON. */
  readonly malformed: Reply
  /** HTTP 400 (the provider rejects the request content) with message "bad things". */
  readonly badRequest: Reply
  /** Checks the upstream request of the image scenario carried the image (data URL given as input). */
  readonly assertImage: (request: RecordedRequest, base64: string) => void
  /** Checks the upstream request forced the named tool. */
  readonly assertForcedTool: (request: RecordedRequest, name: string) => void
  /** Checks the upstream request asked for no tool use (`tool_choice: none`). */
  readonly assertNoTools: (request: RecordedRequest) => void
  /** Checks the upstream request required some tool (`tool_choice: required`). */
  readonly assertAnyTool: (request: RecordedRequest) => void
  /** Checks the upstream request asked for JSON matching the schema. */
  readonly assertJsonSchema: (request: RecordedRequest, schema: Record<string, unknown>) => void
  /** Checks the request was a streaming one (so the right endpoint/flag was used). */
  readonly assertStreaming: (request: RecordedRequest) => void
}
