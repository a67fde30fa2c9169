import type { EmbeddingInput } from "./EmbeddingRequest.ts"

/**
 * Prompt tokens of an embeddings request for providers that do not report them (Gemini, some
 * OpenAI-compatible servers). Token-id input is counted exactly. Text is estimated as one
 * token per 4 bytes of UTF-8, at least 1 per input: about right for English with BPE
 * tokenizers (roughly 4 characters a token) and closer than a character count for scripts
 * with multi-byte characters, which also take more tokens per character.
 */
export const estimatePromptTokens = (input: EmbeddingInput): number => {
  let total = 0
  if (input._tag === "Tokens") {
    for (const tokens of input.tokens) total += tokens.length
    return total
  }
  for (const text of input.texts) total += Math.max(1, Math.ceil(Buffer.byteLength(text, "utf8") / 4))
  return total
}
