/**
 * OpenAI-compatible servers differ in small, known ways. Each difference is data here, read by
 * the one OpenAI-compatible adapter; nothing else branches on a provider's name.
 */
export interface ProviderProfile {
  readonly name: string
  /** Header carrying the key, and the scheme before it ("" sends the bare key). */
  readonly authHeader: string
  readonly authScheme: string
  /** Whether `stream_options.include_usage` is understood; without it usage comes in the last chunk or not at all. */
  readonly streamOptions: boolean
  /** The field name the server reads for the output cap. */
  readonly maxTokensField: "max_completion_tokens" | "max_tokens"
  /** Request fields the server rejects or ignores; a request using one gets a 400 naming it. */
  readonly unsupported: ReadonlyArray<string>
  /** Whether the server has `/audio/transcriptions` and `/audio/translations` (OpenAI's multipart API). */
  readonly transcription: boolean
}

const base: ProviderProfile = {
  name: "generic",
  authHeader: "authorization",
  authScheme: "Bearer",
  streamOptions: true,
  maxTokensField: "max_completion_tokens",
  unsupported: [],
  transcription: true
}

export const profiles: Readonly<Record<string, ProviderProfile>> = {
  generic: base,
  openai: { ...base, name: "openai" },
  // @see https://console.groq.com/docs/openai (speech to text: https://console.groq.com/docs/speech-to-text)
  groq: { ...base, name: "groq", maxTokensField: "max_tokens", unsupported: ["logit_bias", "logprobs", "top_logprobs"] },
  // @see https://docs.mistral.ai/api/
  mistral: {
    ...base,
    name: "mistral",
    streamOptions: false,
    maxTokensField: "max_tokens",
    unsupported: ["logit_bias", "logprobs", "top_logprobs"]
  },
  // @see https://api-docs.deepseek.com/api/create-chat-completion
  deepseek: { ...base, name: "deepseek", maxTokensField: "max_tokens", unsupported: ["logit_bias", "n"], transcription: false },
  // @see https://docs.together.ai/reference/chat-completions-1
  together: { ...base, name: "together", maxTokensField: "max_tokens" },
  // @see https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
  vllm: { ...base, name: "vllm", maxTokensField: "max_tokens" },
  // @see https://github.com/ollama/ollama/blob/main/docs/openai.md
  ollama: { ...base, name: "ollama", maxTokensField: "max_tokens", unsupported: ["logit_bias", "logprobs", "top_logprobs"], transcription: false }
}

export const profileNames: ReadonlyArray<string> = Object.keys(profiles)

export const profileFor = (name: string | undefined): ProviderProfile => profiles[name ?? "generic"] ?? base
