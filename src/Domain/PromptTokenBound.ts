import type { ChatRequest } from "./ChatRequest.ts"
import type { EmbeddingInput } from "./EmbeddingRequest.ts"

/**
 * An upper bound of the prompt tokens a provider bills for a request, for the hold admission
 * takes before the call (ChatTokenEstimate.ts is the likely figure, used where only an estimate
 * is needed). Text: the byte-level BPE tokenizers of OpenAI and Anthropic, and SentencePiece
 * with byte fallback (Gemini, Llama, Mistral), never spend less than one UTF-8 byte per token,
 * so a text of n bytes is at most n tokens, plus one for a prefix or begin marker. Around the
 * text, providers add framing the client never sees: `perMessage` per message (OpenAI spends
 * 3-4), `perRequest` for the reply's priming and begin/end markers, and `withTools` for the
 * tool-use instructions a provider prepends when tools are offered (Anthropic documents up to
 * 346 tokens) on top of the tools' own JSON. Images, audio, video and files cannot be counted
 * before the provider has them: each reserves `mediaPart` tokens, a documented margin rather
 * than a bound (a high-detail image is 765-1,105 tokens on OpenAI, about 1,600 on Anthropic,
 * 258 per image or second of video on Gemini).
 */
export const promptBound = {
  perMessage: 8,
  perRequest: 16,
  withTools: 512,
  mediaPart: 8_192
} as const

const bytes = (text: string): number => Buffer.byteLength(text, "utf8") + 1

export const promptTokenBound = (request: ChatRequest): number => {
  let total = promptBound.perRequest
  for (const message of request.messages) {
    total += promptBound.perMessage
    if ("name" in message && message.name !== undefined) total += bytes(message.name)
    const content = message.content
    if (typeof content === "string") total += bytes(content)
    else if (content !== null) {
      for (const part of content) {
        if (part.type === "text") total += bytes(part.text)
        else if (part.type === "refusal") total += bytes(part.refusal)
        else total += promptBound.mediaPart
      }
    }
    if (message.role === "assistant") {
      if (typeof message.refusal === "string") total += bytes(message.refusal)
      if (message.reasoning_content !== undefined) total += bytes(message.reasoning_content)
      for (const call of message.tool_calls ?? []) total += bytes(call.function.name) + bytes(call.function.arguments) + promptBound.perMessage
    }
    if (message.role === "tool") total += bytes(message.tool_call_id)
  }
  if (request.tools !== undefined && request.tools.length > 0) total += promptBound.withTools + bytes(JSON.stringify(request.tools))
  if (request.response_format !== undefined) total += bytes(JSON.stringify(request.response_format))
  return total
}

/** Embeddings: the same per-byte bound per input text (token ids are counted exactly), plus begin/end markers. */
export const embeddingTokenBound = (input: EmbeddingInput): number => {
  let total = 0
  if (input._tag === "Tokens") {
    for (const tokens of input.tokens) total += tokens.length
    return total
  }
  for (const text of input.texts) total += bytes(text) + 2
  return total
}
