import { expect } from "@effect/vitest"
import { openAiKit } from "../Providers/OpenAiKit.ts"
import type { ProviderKit } from "../Providers/ProviderKit.ts"

/**
 * Bodies and streams in OpenAI's Responses API wire format, shaped like the examples of its API
 * reference (the response object, the streaming events with their sequence numbers).
 * @see https://platform.openai.com/docs/api-reference/responses/object
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */

const usage = (input: number, output: number, extra: { cached?: number; reasoning?: number } = {}) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: extra.cached ?? 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: extra.reasoning ?? 0 },
  total_tokens: input + output
})

const envelope = {
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  model: "gpt-4.1-2025-04-14",
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: false,
  temperature: 1,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: 1,
  truncation: "disabled",
  user: null,
  metadata: {}
}

export const textMessage = (id: string, text: string) => ({
  type: "message",
  id,
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }]
})
export const functionCall = (id: string, callId: string, name: string, args: string) => ({ type: "function_call", id, call_id: callId, name, arguments: args, status: "completed" })
export const reasoning = (id: string, summary: string, encrypted: string) => ({
  type: "reasoning",
  id,
  summary: [{ type: "summary_text", text: summary }],
  encrypted_content: encrypted
})

export const responsesBody = (output: ReadonlyArray<unknown>, options: { usage?: ReturnType<typeof usage>; status?: string; incomplete?: string } = {}) => ({
  ...envelope,
  status: options.status ?? "completed",
  ...(options.incomplete === undefined ? {} : { incomplete_details: { reason: options.incomplete } }),
  output,
  usage: options.usage ?? usage(19, 10)
})

/** Frames events as the API does: `event:` then `data:`, each with its sequence number. */
export const responsesFrames = (events: ReadonlyArray<Record<string, unknown>>): Array<string> =>
  events.map((e, i) => `event: ${String(e["type"])}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`)

const inProgress = { ...envelope, status: "in_progress", output: [], usage: null }

/** A text streamed as the API streams it: lifecycle, one message item, its deltas, completed. */
export const responsesTextEvents = (pieces: ReadonlyArray<string>, options: { readonly usage?: ReturnType<typeof usage>; readonly before?: ReadonlyArray<Record<string, unknown>>; readonly outputBefore?: ReadonlyArray<unknown> } = {}) => {
  const id = "msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654"
  const index = options.outputBefore?.length ?? 0
  const text = pieces.join("")
  const part = { type: "output_text", text: "", annotations: [] }
  return [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    ...(options.before ?? []),
    { type: "response.output_item.added", output_index: index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } },
    { type: "response.content_part.added", item_id: id, output_index: index, content_index: 0, part },
    ...pieces.map((delta) => ({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: 0, delta, logprobs: [] })),
    { type: "response.output_text.done", item_id: id, output_index: index, content_index: 0, text, logprobs: [] },
    { type: "response.content_part.done", item_id: id, output_index: index, content_index: 0, part: { ...part, text } },
    { type: "response.output_item.done", output_index: index, item: textMessage(id, text) },
    { type: "response.completed", response: responsesBody([...(options.outputBefore ?? []), textMessage(id, text)], { usage: options.usage ?? usage(12, 3) }) }
  ]
}

/** Two function calls streamed with their argument pieces. */
export const responsesToolEvents = () => {
  const calls = [
    { id: "fc_12345xyz", callId: "call_abc", name: "get_weather", pieces: ["{\"city\":", "\"Paris\"}"] },
    { id: "fc_67890abc", callId: "call_def", name: "get_time", pieces: ["{\"tz\":\"CET\"}"] }
  ]
  return [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    ...calls.flatMap((c, index) => [
      { type: "response.output_item.added", output_index: index, item: { type: "function_call", id: c.id, call_id: c.callId, name: c.name, arguments: "", status: "in_progress" } },
      ...c.pieces.map((delta) => ({ type: "response.function_call_arguments.delta", item_id: c.id, output_index: index, delta })),
      { type: "response.function_call_arguments.done", item_id: c.id, output_index: index, name: c.name, arguments: c.pieces.join("") },
      { type: "response.output_item.done", output_index: index, item: functionCall(c.id, c.callId, c.name, c.pieces.join("")) }
    ]),
    { type: "response.completed", response: responsesBody(calls.map((c) => functionCall(c.id, c.callId, c.name, c.pieces.join(""))), { usage: usage(52, 14) }) }
  ]
}

export { usage as responsesUsage }

const body = (request: { body: unknown }) => request.body as Record<string, any>

/** OpenAI served natively: the battery's scenarios in the Responses API's wire format. */
export const openAiResponsesKit: ProviderKit = {
  ...openAiKit,
  text: { kind: "json", status: 200, body: responsesBody([textMessage("msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b", "Hello there!")]) },
  textStream: { kind: "sse", frames: responsesFrames(responsesTextEvents(["Hel", "lo"])) },
  toolCall: {
    kind: "json",
    status: 200,
    body: responsesBody([functionCall("fc_12345xyz", "call_12345xyz", "get_weather", "{\"city\":\"Paris\"}")], { usage: usage(40, 6) })
  },
  parallelToolStream: { kind: "sse", frames: responsesFrames(responsesToolEvents()) },
  jsonSchema: { kind: "json", status: 200, body: responsesBody([textMessage("msg_json", "{\"answer\":42}")], { usage: usage(30, 5) }) },
  assertImage: (request, base64) => {
    const input = body(request).input as Array<any>
    expect(input[0].content).toContainEqual({ type: "input_image", image_url: `data:image/png;base64,${base64}`, detail: "auto" })
  },
  assertJsonSchema: (request, schema) =>
    expect(body(request).text.format).toEqual({ type: "json_schema", name: "answer", schema, strict: true }),
  assertStreaming: (request) => {
    expect(request.url).toBe("/v1/responses")
    expect(body(request).stream).toBe(true)
  }
}
