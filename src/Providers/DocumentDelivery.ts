import type { FilePart, UserContentPart } from "../Domain/ChatContentPart.ts"
import type { ChatMessage } from "../Domain/ChatMessage.ts"
import type { ChatRequest } from "../Domain/ChatRequest.ts"

/**
 * Spec 2.3 delivery: a resolved document goes to the provider natively when the provider takes
 * that format (`nativeTypes`), and as its extracted text otherwise; a vision model also gets the
 * rendered pages of a PDF it cannot read natively. Unresolved parts pass unchanged.
 */
export const deliverFile = (part: FilePart, nativeTypes: ReadonlySet<string>, vision: boolean): ReadonlyArray<UserContentPart> => {
  const doc = part.resolved
  if (doc === undefined) return [part]
  if (nativeTypes.has(doc.mimeType)) {
    return [{ type: "file", file: { filename: doc.filename, file_data: doc.data, mime_type: doc.mimeType } }]
  }
  const text: UserContentPart = { type: "text", text: `<document name="${doc.filename}">\n${doc.text}\n</document>` }
  const pages: ReadonlyArray<UserContentPart> = vision
    ? doc.pageImages.map((url) => ({ type: "image_url", image_url: { url } }))
    : []
  return [text, ...pages]
}

/** The request with every resolved document turned into what this provider takes. */
export const withDocumentsDelivered = (request: ChatRequest, nativeTypes: ReadonlySet<string>, vision: boolean): ChatRequest => {
  let changed = false
  const messages = request.messages.map((message): ChatMessage => {
    if (message.role !== "user" || typeof message.content === "string") return message
    if (!message.content.some((part) => part.type === "file" && part.resolved !== undefined)) return message
    changed = true
    return { ...message, content: message.content.flatMap((part) => (part.type === "file" ? deliverFile(part, nativeTypes, vision) : [part])) }
  })
  return changed ? { ...request, messages } : request
}

/** Formats each provider reads natively. */
export const nativeDocumentTypes = {
  openai: new Set(["application/pdf"]),
  anthropic: new Set(["application/pdf", "text/plain"]),
  gemini: new Set(["application/pdf", "text/plain"]),
  none: new Set<string>()
} as const
