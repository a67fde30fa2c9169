import type { ChatCompletion, CompletionChoice, FinishReason } from "../../Domain/ChatCompletion.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import { estimatePromptTokens } from "../../Domain/ChatTokenEstimate.ts"
import { type ChatStreamEvent, finish, textDelta, usageEvent } from "../../Domain/ChatStreamEvent.ts"
import type { Usage } from "../../Domain/Usage.ts"
import { nativeDocumentTypes, withDocumentsDelivered } from "../DocumentDelivery.ts"

/**
 * The `mock` provider's answers: pure functions of the request, so the same request always gets
 * the same reply, tokens and usage. The reply echoes what the gateway delivered (the last user
 * text, how much document text and how many images), which shows that uploads, extraction and
 * routing worked without any upstream.
 */

/** Longest stretch of the user's text quoted back. */
export const quotedLength = 80

/** What the last user message carried, as the provider receives it. */
export interface Received {
  readonly text: string
  readonly documents: number
  readonly documentChars: number
  readonly images: number
}

export const received = (request: ChatRequest): Received => {
  const last = request.messages.findLast((message) => message.role === "user")
  if (last === undefined || last.role !== "user") return { text: "", documents: 0, documentChars: 0, images: 0 }
  if (typeof last.content === "string") return { text: last.content, documents: 0, documentChars: 0, images: 0 }
  let text = ""
  let documents = 0
  let documentChars = 0
  let images = 0
  for (const part of last.content) {
    if (part.type === "text") text = text === "" ? part.text : `${text} ${part.text}`
    else if (part.type === "file") {
      documents++
      documentChars += part.resolved?.text.length ?? 0
    } else if (part.type === "image_url") images++
  }
  return { text, documents, documentChars, images }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** Whitespace collapsed and cut at `quotedLength` characters (an ellipsis marks the cut). */
export const quote = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= quotedLength ? flat : `${flat.slice(0, quotedLength - 1)}…`
}

export const replyText = (request: ChatRequest): string => {
  const got = received(request)
  const extras: Array<string> = []
  if (got.documents > 0) {
    extras.push(`received ${plural(got.documents, "document", "documents")} with ${plural(got.documentChars, "character", "characters")} of text`)
  }
  if (got.images > 0) extras.push(`received ${plural(got.images, "image", "images")}`)
  const base = `mock reply to: ${quote(got.text) === "" ? "(no text)" : quote(got.text)}`
  return extras.length === 0 ? base : `${base} (${extras.join("; ")})`
}

/**
 * The reply as the provider's tokens: one per word, its following space included, so a stream's
 * deltas, `max_completion_tokens` and `completion_tokens` all count the same units.
 */
export const replyTokens = (text: string): ReadonlyArray<string> => text.match(/\S+\s*/g) ?? []

/** The tokens sent for one choice and why the turn ended: cut at `max_completion_tokens`, else complete. */
export const generated = (request: ChatRequest): { readonly tokens: ReadonlyArray<string>; readonly reason: FinishReason } => {
  const tokens = replyTokens(replyText(request))
  const max = request.max_completion_tokens
  return max !== undefined && tokens.length > max ? { tokens: tokens.slice(0, max), reason: "length" } : { tokens, reason: "stop" }
}

/** Prompt tokens as the gateway's estimate counts them, documents counted as the text delivered. */
export const promptTokens = (request: ChatRequest): number =>
  estimatePromptTokens(withDocumentsDelivered(request, nativeDocumentTypes.none, false))

export const mockUsage = (request: ChatRequest, completionTokensPerChoice: number): Usage => ({
  promptTokens: promptTokens(request),
  completionTokens: completionTokensPerChoice * request.n
})

export const mockCompletion = (request: ChatRequest): ChatCompletion => {
  const { tokens, reason } = generated(request)
  const content = tokens.join("")
  const choices = Array.from({ length: request.n }, (_, index): CompletionChoice => ({
    index,
    message: { role: "assistant", content, refusal: null },
    finish_reason: reason,
    logprobs: null
  }))
  return { choices, usage: mockUsage(request, tokens.length), systemFingerprint: "mock" }
}

/** The same answer as `mockCompletion`, one delta per token, then each choice's finish and the usage. */
export const mockStreamEvents = (request: ChatRequest): ReadonlyArray<ChatStreamEvent> => {
  const { tokens, reason } = generated(request)
  const events: Array<ChatStreamEvent> = []
  for (let choice = 0; choice < request.n; choice++) {
    for (const token of tokens) events.push(textDelta(choice, token))
    events.push(finish(choice, reason))
  }
  events.push(usageEvent(mockUsage(request, tokens.length)))
  return events
}
