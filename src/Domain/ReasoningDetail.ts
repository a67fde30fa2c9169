/**
 * Reasoning a provider can only take back exactly as it issued it: Anthropic's thinking blocks
 * with their signatures, and its redacted thinking. A dialect that can carry them to the client
 * and back (Responses: a reasoning item's `encrypted_content`) returns them on the assistant
 * message of the next turn; the provider's codec replays them, and every other codec ignores them.
 * @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
export type ReasoningDetail =
  | { readonly provider: "anthropic"; readonly type: "thinking"; readonly text: string; readonly signature: string }
  | { readonly provider: "anthropic"; readonly type: "redacted"; readonly data: string }
  /**
   * Gemini's thought signature of a model turn's part: of the function call `callId`, or of its
   * text when there is none. Gemini 3 refuses replayed calls without it.
   * @see https://ai.google.dev/gemini-api/docs/thought-signatures
   */
  | { readonly provider: "gemini"; readonly type: "signature"; readonly signature: string; readonly callId?: string }
