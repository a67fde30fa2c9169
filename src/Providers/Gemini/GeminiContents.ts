import type { UserContentPart } from "../../Domain/ChatContentPart.ts"
import { type AssistantMessage, type ChatMessage, textOf, type ToolMessage } from "../../Domain/ChatMessage.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { audioPart, filePart, imagePart, videoPart } from "./GeminiMedia.ts"
import { type GeminiContent, type GeminiPart, isRecord, type JsonRecord } from "./GeminiWire.ts"

export interface GeminiConversation {
  readonly systemInstruction?: { readonly parts: ReadonlyArray<{ readonly text: string }> }
  readonly contents: ReadonlyArray<GeminiContent>
}

/**
 * History replayed to Gemini 3 must carry the thought signature of each model turn's first
 * function call. The chat wire has no field that could bring it back from the client, so
 * unless a dialect carried the real one back (`reasoning_details`, the Responses API's
 * `encrypted_content`), replayed calls carry the validator-skip value the docs give for history
 * Gemini did not sign.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const replayedCallSignature = "skip_thought_signature_validator"

const userPart = (part: UserContentPart, path: string): GeminiPart => {
  switch (part.type) {
    case "text":
      return { text: part.text }
    case "image_url":
      return imagePart(part, path)
    case "input_audio":
      return audioPart(part, path)
    case "input_video":
      return videoPart(part, path)
    case "file":
      return filePart(part, path)
  }
}

/** Tool-call arguments are a JSON string in the chat wire and a JSON object for Gemini. */
const callArguments = (raw: string, at: string): JsonRecord => {
  if (raw.trim() === "") return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw GatewayError.invalid(`'${at}' is not valid JSON.`, at)
  }
  if (!isRecord(parsed)) throw GatewayError.invalid(`'${at}' must be a JSON object.`, at)
  return parsed
}

/**
 * Earlier assistant turns: text, then their calls. Their `reasoning_content` is not replayed:
 * Gemini takes thoughts back only as signed parts, which the chat wire cannot carry.
 * @see https://ai.google.dev/gemini-api/docs/function-calling
 */
const assistantParts = (message: AssistantMessage, index: number): Array<GeminiPart> => {
  const parts: Array<GeminiPart> = []
  // Signatures Gemini issued and a dialect carried back (see ReasoningDetail.ts) go back on their parts.
  const signatures = new Map<string | undefined, string>()
  for (const detail of message.reasoning_details ?? []) {
    if (detail.provider === "gemini" && !signatures.has(detail.callId)) signatures.set(detail.callId, detail.signature)
  }
  const text = textOf(message.content)
  const textSignature = signatures.get(undefined)
  if (text !== "") parts.push(textSignature === undefined ? { text } : { text, thoughtSignature: textSignature })
  for (const [j, call] of (message.tool_calls ?? []).entries()) {
    const args = callArguments(call.function.arguments, `messages[${index}].tool_calls[${j}].function.arguments`)
    const signature = signatures.get(call.id) ?? (j === 0 ? replayedCallSignature : undefined)
    parts.push({ functionCall: { name: call.function.name, args, id: call.id }, ...(signature === undefined ? {} : { thoughtSignature: signature }) })
  }
  return parts
}

/** Gemini's `functionResponse` is keyed by function name, so the call being answered is looked up. */
const toolPart = (message: ToolMessage, index: number, history: ReadonlyArray<ChatMessage>): GeminiPart => {
  for (let i = index - 1; i >= 0; i--) {
    const earlier = history[i]
    if (earlier?.role !== "assistant") continue
    const call = earlier.tool_calls?.find((c) => c.id === message.tool_call_id)
    if (call !== undefined) {
      return {
        functionResponse: { name: call.function.name, id: call.id, response: { output: textOf(message.content) } }
      }
    }
  }
  const at = `messages[${index}].tool_call_id`
  throw GatewayError.invalid(`'${at}' ('${message.tool_call_id}') answers no tool call of an earlier assistant message.`, at)
}

/**
 * Chat messages -> Gemini `contents` plus `systemInstruction`. Roles become `user` / `model`;
 * tool results are `user` turns of `functionResponse` parts; consecutive turns of one role
 * are merged, so parallel calls are answered in one turn as Gemini expects. Every system
 * message goes into `systemInstruction` (Gemini has no system turns), in order.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export const geminiConversation = (messages: ReadonlyArray<ChatMessage>): GeminiConversation => {
  const system: Array<{ text: string }> = []
  const contents: Array<{ role: "user" | "model"; parts: Array<GeminiPart> }> = []
  const push = (role: "user" | "model", parts: ReadonlyArray<GeminiPart>) => {
    if (parts.length === 0) return
    const last = contents.at(-1)
    if (last?.role === role) last.parts.push(...parts)
    else contents.push({ role, parts: [...parts] })
  }
  for (const [i, message] of messages.entries()) {
    switch (message.role) {
      case "system": {
        const text = textOf(message.content)
        if (text !== "") system.push({ text })
        break
      }
      case "user":
        push(
          "user",
          typeof message.content === "string"
            ? [{ text: message.content }]
            : message.content.map((part, j) => userPart(part, `messages[${i}].content[${j}]`))
        )
        break
      case "assistant":
        push("model", assistantParts(message, i))
        break
      case "tool":
        push("user", [toolPart(message, i, messages)])
        break
    }
  }
  if (contents.length === 0) {
    throw GatewayError.invalid("'messages' needs at least one user, assistant or tool message besides system messages.", "messages")
  }
  return { contents, ...(system.length === 0 ? {} : { systemInstruction: { parts: system } }) }
}
