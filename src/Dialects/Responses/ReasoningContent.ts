import type { ReasoningDetail } from "../../Domain/ReasoningDetail.ts"

/**
 * Signed reasoning of a translated provider (Anthropic's thinking signatures and redacted
 * thinking, Gemini's thought signatures) carried through the client in a reasoning item's `encrypted_content`, the field the
 * Responses API has for reasoning the client must return untouched. The gateway's own marker
 * keeps it apart from OpenAI's encrypted reasoning: it is never sent to OpenAI, and only its
 * provider's codec replays it. It is not secret: the provider verifies its own signatures.
 */
const prefix = "gwr1."

export const sealReasoning = (details: ReadonlyArray<ReasoningDetail>): string =>
  `${prefix}${Buffer.from(JSON.stringify(details), "utf8").toString("base64url")}`

export const isSealedReasoning = (content: unknown): boolean => typeof content === "string" && content.startsWith(prefix)

const isDetail = (value: unknown): value is ReasoningDetail => {
  if (value === null || typeof value !== "object") return false
  const d = value as Record<string, unknown>
  if (d["provider"] === "gemini") {
    return d["type"] === "signature" && typeof d["signature"] === "string" && (d["callId"] === undefined || typeof d["callId"] === "string")
  }
  if (d["provider"] !== "anthropic") return false
  return d["type"] === "thinking"
    ? typeof d["text"] === "string" && typeof d["signature"] === "string"
    : d["type"] === "redacted" && typeof d["data"] === "string"
}

/** The details sealed in `content`; none when it is not the gateway's (OpenAI's own, or altered). */
export const openReasoning = (content: unknown): ReadonlyArray<ReasoningDetail> => {
  if (!isSealedReasoning(content)) return []
  try {
    const parsed: unknown = JSON.parse(Buffer.from((content as string).slice(prefix.length), "base64url").toString("utf8"))
    return Array.isArray(parsed) ? parsed.filter(isDetail) : []
  } catch {
    return []
  }
}
