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
  /** Whether the server samples with `top_k` (a Messages request's field); others drop it. */
  readonly topK: boolean
  /** How its `/images/generations` takes dimensions and names base64 output. */
  readonly image: ImageProfile
  /** Whether the server has `/audio/transcriptions` and `/audio/translations` (OpenAI's multipart API). */
  readonly transcription: boolean
}

export interface ImageProfile {
  /** `size: "WxH"` (OpenAI), separate integer `width` and `height`, or `aspect_ratio` plus a `resolution` token. */
  readonly dimensions: "size" | "width_height" | "aspect_ratio"
  /** The `response_format` value that asks for base64 images. */
  readonly base64Format: string
}

const base: ProviderProfile = {
  name: "generic",
  authHeader: "authorization",
  authScheme: "Bearer",
  streamOptions: true,
  maxTokensField: "max_completion_tokens",
  unsupported: [],
  topK: false,
  image: { dimensions: "size", base64Format: "b64_json" },
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
  // @see https://docs.together.ai/reference/post-images-generations
  together: { ...base, name: "together", maxTokensField: "max_tokens", topK: true, image: { dimensions: "width_height", base64Format: "base64" } },
  // @see https://docs.x.ai/docs/guides/image-generation
  xai: { ...base, name: "xai", maxTokensField: "max_tokens", image: { dimensions: "aspect_ratio", base64Format: "b64_json" } },
  // @see https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
  vllm: { ...base, name: "vllm", maxTokensField: "max_tokens", topK: true },
  // @see https://github.com/ollama/ollama/blob/main/docs/openai.md
  ollama: { ...base, name: "ollama", maxTokensField: "max_tokens", unsupported: ["logit_bias", "logprobs", "top_logprobs"], transcription: false }
}

export const profileNames: ReadonlyArray<string> = Object.keys(profiles)

export const profileFor = (name: string | undefined): ProviderProfile => profiles[name ?? "generic"] ?? base
