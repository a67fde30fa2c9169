import type * as Arr from "effect/Array"
import type { GatewayErrorReason } from "../../Domain/GatewayError.ts"
import type { ResponseEvent } from "./ResponsesStreamEncoder.ts"

/**
 * Responses events on the wire: an `event:` line naming the type, then the `data:` line, as the
 * API sends them. A batch is one buffer, so one write to the client.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export const encodeResponseEvents = (batch: Arr.NonEmptyReadonlyArray<ResponseEvent> | ReadonlyArray<ResponseEvent>): Uint8Array => {
  let text = ""
  for (const event of batch) text += `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
  return Buffer.from(text, "utf8")
}

/**
 * The `code` of a stream that broke after it started (`error` event and the failed response's
 * `error.code`), from the API's list: throttling is `rate_limit_exceeded`, anything else on the
 * gateway's or a provider's side `server_error`.
 */
export const streamErrorCode = (reason: GatewayErrorReason): string =>
  reason._tag === "RateLimited" || (reason._tag === "UpstreamFailure" && reason.kind === "rate_limited") ? "rate_limit_exceeded" : "server_error"
