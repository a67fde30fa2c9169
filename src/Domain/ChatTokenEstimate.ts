import type { ChatRequest } from "./ChatRequest.ts"

/**
 * Token estimates for a chat call whose provider never reported usage: a stream the client
 * cancelled (or that broke) before the provider's usage arrived. The provider bills it anyway,
 * so the ledger records an estimate (marked as one) rather than zero. One token per 4 bytes
 * of UTF-8 text, about right for English with BPE tokenizers; non-text parts are not counted.
 */
const tokensOf = (text: string): number => Math.ceil(Buffer.byteLength(text, "utf8") / 4)

/** Per-message framing tokens, as OpenAI's chat format spends them (role and separators). */
const perMessage = 4

export const estimatePromptTokens = (request: ChatRequest): number => {
  let total = 0
  for (const message of request.messages) {
    total += perMessage
    const content = message.content
    if (typeof content === "string") total += tokensOf(content)
    else if (content !== null) {
      for (const part of content) {
        if (part.type === "text") total += tokensOf(part.text)
        else if (part.type === "refusal") total += tokensOf(part.refusal)
      }
    }
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) total += tokensOf(call.function.name) + tokensOf(call.function.arguments)
    }
  }
  if (request.tools !== undefined) total += tokensOf(JSON.stringify(request.tools))
  return total
}

/** Completion tokens from the characters of text, reasoning, refusal and tool arguments seen. */
export const estimateCompletionTokens = (generatedBytes: number): number => Math.ceil(generatedBytes / 4)
