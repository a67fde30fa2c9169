import { sseFrame } from "./FakeUpstream.ts"

/** Bodies in OpenAI's real wire format, as its API returns them. */
export const openAiCompletion = (options: {
  readonly content?: string | null
  readonly toolCalls?: ReadonlyArray<{ id: string; name: string; arguments: string }>
  readonly finish?: string
  readonly usage?: Record<string, unknown>
  readonly model?: string
} = {}) => ({
  id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  object: "chat.completion",
  created: 1741570283,
  model: options.model ?? "gpt-4o-mini-2024-07-18",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: options.content === undefined ? "Hello there!" : options.content,
        refusal: null,
        annotations: [],
        ...(options.toolCalls === undefined
          ? {}
          : {
            tool_calls: options.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }))
          })
      },
      logprobs: null,
      finish_reason: options.finish ?? (options.toolCalls === undefined ? "stop" : "tool_calls")
    }
  ],
  usage: options.usage ?? {
    prompt_tokens: 19,
    completion_tokens: 10,
    total_tokens: 29,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 }
  },
  service_tier: "default",
  system_fingerprint: "fp_06737a9306"
})

const chunkBase = { id: "chatcmpl-stream1", object: "chat.completion.chunk", created: 1741570283, model: "gpt-4o-mini-2024-07-18", system_fingerprint: "fp_06737a9306" }

export const openAiChunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  ...chunkBase,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  ...extra
})

export const openAiUsageChunk = (usage: Record<string, unknown> = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } }) => ({
  ...chunkBase,
  choices: [],
  usage
})

/** A text reply streamed the way OpenAI does: role first, content pieces, finish, usage, [DONE]. */
export const openAiTextFrames = (pieces: ReadonlyArray<string>, options: { usage?: boolean } = {}) => [
  sseFrame(openAiChunk({ role: "assistant", content: "", refusal: null })),
  ...pieces.map((p) => sseFrame(openAiChunk({ content: p }))),
  sseFrame(openAiChunk({}, "stop")),
  ...(options.usage === false ? [] : [sseFrame(openAiUsageChunk())]),
  sseFrame("[DONE]")
]

/** Two parallel tool calls with arguments split across chunks. */
export const openAiToolFrames = () => [
  sseFrame(openAiChunk({ role: "assistant", content: null })),
  sseFrame(openAiChunk({ tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "get_weather", arguments: "" } }] })),
  sseFrame(openAiChunk({ tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] })),
  sseFrame(openAiChunk({ tool_calls: [{ index: 0, function: { arguments: "\"Paris\"}" } }] })),
  sseFrame(openAiChunk({ tool_calls: [{ index: 1, id: "call_def", type: "function", function: { name: "get_time", arguments: "" } }] })),
  sseFrame(openAiChunk({ tool_calls: [{ index: 1, function: { arguments: "{\"tz\":\"CET\"}" } }] })),
  sseFrame(openAiChunk({}, "tool_calls")),
  sseFrame(openAiUsageChunk()),
  sseFrame("[DONE]")
]
