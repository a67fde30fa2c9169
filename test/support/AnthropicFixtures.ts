/**
 * Bodies in Anthropic's Messages API wire format, as its API returns them.
 * @see https://platform.claude.com/docs/en/api/messages/create
 * @see https://platform.claude.com/docs/en/build-with-claude/streaming
 */

export const anthropicUsage = (usage: Record<string, unknown> = {}) => ({
  input_tokens: 19,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: 10,
  service_tier: "standard",
  ...usage
})

export const anthropicMessage = (options: {
  readonly content?: ReadonlyArray<Record<string, unknown>>
  readonly stopReason?: string
  readonly usage?: Record<string, unknown>
  readonly model?: string
} = {}) => ({
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: options.model ?? "claude-sonnet-4-5-20250929",
  content: options.content ?? [{ type: "text", text: "Hello there!" }],
  stop_reason: options.stopReason ?? "end_turn",
  stop_sequence: null,
  usage: anthropicUsage(options.usage)
})

export const toolUse = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input })

export const anthropicErrorBody = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_011CSHoEeqs5C35K2UUqR7Fy"
})

/** One upstream SSE event: the `event:` line names the type the data repeats. */
export interface AnthropicEvent {
  readonly event: string
  readonly data: unknown
}

/** Frames events the way the API does; `eol` "\r\n" gives CRLF framing. */
export const anthropicFrames = (events: ReadonlyArray<AnthropicEvent>, eol = "\n"): Array<string> =>
  events.map((e) => `event: ${e.event}${eol}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}${eol}${eol}`)

const ev = (data: { readonly type: string } & Record<string, unknown>): AnthropicEvent => ({ event: data.type, data })

export const messageStart = (usage: Record<string, unknown> = { input_tokens: 12, output_tokens: 1 }) =>
  ev({
    type: "message_start",
    message: {
      id: "msg_01RFuVPPnYCFGL9ucejc3Rd4",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: anthropicUsage(usage)
    }
  })
export const ping = () => ev({ type: "ping" })
export const textStart = (index: number) => ev({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
export const textDelta = (index: number, text: string) =>
  ev({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
export const thinkingStart = (index: number) =>
  ev({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } })
export const thinkingDelta = (index: number, thinking: string) =>
  ev({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } })
export const signatureDelta = (index: number) =>
  ev({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" } })
export const toolStart = (index: number, id: string, name: string) =>
  ev({ type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } })
export const jsonDelta = (index: number, partial: string) =>
  ev({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: partial } })
export const blockStop = (index: number) => ev({ type: "content_block_stop", index })
export const messageDelta = (stopReason: string, usage: Record<string, unknown> = { output_tokens: 3 }) =>
  ev({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage })
export const messageStop = () => ev({ type: "message_stop" })
export const errorEvent = (type: string, message: string) => ev({ type: "error", error: { type, message } })

/** A text reply streamed as the API does it, with a ping between blocks. */
export const anthropicTextEvents = (pieces: ReadonlyArray<string>): Array<AnthropicEvent> => [
  messageStart(),
  textStart(0),
  ping(),
  ...pieces.map((p) => textDelta(0, p)),
  blockStop(0),
  messageDelta("end_turn"),
  messageStop()
]

/** Extended thinking as the API streams it: a signed thinking block in pieces, then a text block. */
export const anthropicThinkingEvents = (options: {
  readonly thinking: ReadonlyArray<string>
  readonly text: string
  readonly startUsage?: Record<string, unknown>
  readonly endUsage?: Record<string, unknown>
}): Array<AnthropicEvent> => [
  messageStart(options.startUsage),
  thinkingStart(0),
  ...options.thinking.map((piece) => thinkingDelta(0, piece)),
  signatureDelta(0),
  blockStop(0),
  textStart(1),
  textDelta(1, options.text),
  blockStop(1),
  messageDelta("end_turn", options.endUsage),
  messageStop()
]

/** Two parallel tool calls after a short text, arguments split across `input_json_delta` pieces. */
export const anthropicToolEvents = (): Array<AnthropicEvent> => [
  messageStart(),
  textStart(0),
  textDelta(0, "Let me check both."),
  blockStop(0),
  toolStart(1, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather"),
  jsonDelta(1, ""),
  jsonDelta(1, "{\"city\":"),
  jsonDelta(1, " \"Paris\"}"),
  blockStop(1),
  toolStart(2, "toolu_01EAuEDbqVUQE3tZ9G6RAWtY", "get_time"),
  jsonDelta(2, "{\"tz\": \"C"),
  jsonDelta(2, "ET\"}"),
  blockStop(2),
  messageDelta("tool_use", { output_tokens: 89 }),
  messageStop()
]
