import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { TextPart, UserContentPart } from "../../Domain/ChatContentPart.ts"
import type { ChatMessage } from "../../Domain/ChatMessage.ts"
import type { ToolCall } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { formatIssuePath, schemaErrorToGateway } from "../../Domain/SchemaErrors.ts"
import {
  DocumentBlock,
  ImageBlock,
  MessageShell,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock
} from "./MessagesWire.ts"

type Path = ReadonlyArray<PropertyKey>

const at = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown, path: Path): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), (error) => schemaErrorToGateway(error, path))
}

const messageShell = at(MessageShell)
const blockType = at(Schema.Struct({ type: Schema.String }))
const userBlocks = {
  text: at(TextBlock),
  image: at(ImageBlock),
  document: at(DocumentBlock),
  tool_result: at(ToolResultBlock)
} as const
const assistantBlocks = {
  text: at(TextBlock),
  tool_use: at(ToolUseBlock),
  thinking: at(ThinkingBlock),
  redacted_thinking: at(RedactedThinkingBlock)
} as const

/** What decoding learned beside the neutral request: fields it could not carry, parts only Anthropic serves. */
export class DecodeNotes {
  private readonly droppedFields = new Set<string>()
  readonly serverTools: Array<string> = []
  nativeOnly: string | undefined
  drop(field: string): void {
    this.droppedFields.add(field)
  }
  needsNative(path: Path): void {
    this.nativeOnly ??= formatIssuePath(path)
  }
  dropped(): Array<string> {
    return [...this.droppedFields]
  }
}

const noteBlockExtras = (block: { readonly cache_control?: unknown; readonly citations?: unknown }, notes: DecodeNotes) => {
  if (block.cache_control != null) notes.drop("cache_control")
  if (block.citations != null) notes.drop("citations")
}

const unknownBlock = (path: Path, type: string, allowed: ReadonlyArray<string>) =>
  GatewayError.invalid(
    `${formatIssuePath([...path, "type"])}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${allowed.join(", ")}`,
    formatIssuePath([...path, "type"])
  )

/** Server-tool blocks and other block kinds only Anthropic reads. */
const anthropicOnlyBlocks: ReadonlySet<string> = new Set([
  "search_result",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "tool_reference"
])

const text = (value: string): TextPart => ({ type: "text", text: value })

/** @see https://platform.claude.com/docs/en/build-with-claude/vision */
const imagePart = (block: typeof ImageBlock.Type): UserContentPart =>
  block.source.type === "base64"
    ? { type: "image_url", image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } }
    : { type: "image_url", image_url: { url: block.source.url } }

/** PDFs and URLs become file parts (resolved and delivered like chat's); plain text is text. */
const documentPart = (block: typeof DocumentBlock.Type, notes: DecodeNotes): UserContentPart => {
  if (block.context != null) notes.drop("document.context")
  const source = block.source
  const filename = block.title ?? undefined
  switch (source.type) {
    case "base64":
      return {
        type: "file",
        file: { file_data: `data:application/pdf;base64,${source.data}`, filename: filename ?? "document.pdf", mime_type: "application/pdf" }
      }
    case "url":
      return { type: "file", file: { file_url: source.url, ...(filename === undefined ? {} : { filename }) } }
    case "text":
      return text(filename === undefined ? source.data : `${filename}\n\n${source.data}`)
  }
}

/** A tool result's content: text only in the neutral form; images and documents need Anthropic. */
const toolResultText = (content: string | ReadonlyArray<unknown> | undefined, path: Path, notes: DecodeNotes) =>
  Effect.gen(function* () {
    if (content === undefined) return ""
    if (typeof content === "string") return content
    const pieces: Array<string> = []
    for (const [k, raw] of content.entries()) {
      const where = [...path, "content", k]
      const { type } = yield* blockType(raw, where)
      if (type !== "text") {
        notes.needsNative(where)
        continue
      }
      const block = yield* userBlocks.text(raw, where)
      noteBlockExtras(block, notes)
      pieces.push(block.text)
    }
    return pieces.join("\n")
  })

/** A turn's blocks with their paths and types; blocks only Anthropic reads are noted and left out. */
const translatable = (blocks: ReadonlyArray<unknown>, path: Path, notes: DecodeNotes) =>
  Effect.map(
    Effect.forEach(blocks, (raw, j) => {
      const where = [...path, j]
      return Effect.map(blockType(raw, where), ({ type }) => ({ raw, where, type }))
    }),
    (all) =>
      all.filter((block) => {
        if (!anthropicOnlyBlocks.has(block.type)) return true
        notes.needsNative([...block.where, "type"])
        return false
      })
  )

const userTurn = (blocks: ReadonlyArray<unknown>, path: Path, notes: DecodeNotes) =>
  Effect.gen(function* () {
    const results: Array<ChatMessage> = []
    const parts: Array<UserContentPart> = []
    for (const { raw, where, type } of yield* translatable(blocks, path, notes)) {
      switch (type) {
        case "text": {
          const block = yield* userBlocks.text(raw, where)
          noteBlockExtras(block, notes)
          parts.push(text(block.text))
          break
        }
        case "image": {
          const block = yield* userBlocks.image(raw, where)
          noteBlockExtras(block, notes)
          parts.push(imagePart(block))
          break
        }
        case "document": {
          const block = yield* userBlocks.document(raw, where)
          noteBlockExtras(block, notes)
          parts.push(documentPart(block, notes))
          break
        }
        case "tool_result": {
          const block = yield* userBlocks.tool_result(raw, where)
          noteBlockExtras(block, notes)
          if (block.is_error === true) notes.drop("tool_result.is_error")
          results.push({ role: "tool", tool_call_id: block.tool_use_id, content: yield* toolResultText(block.content, where, notes) })
          break
        }
        default:
          return yield* unknownBlock(where, type, [...Object.keys(userBlocks), ...anthropicOnlyBlocks])
      }
    }
    // Anthropic puts tool results first in a user turn; the neutral form has them as tool messages before it.
    if (parts.length > 0) results.push({ role: "user", content: parts })
    return results
  })

const assistantTurn = (blocks: ReadonlyArray<unknown>, path: Path, notes: DecodeNotes) =>
  Effect.gen(function* () {
    const texts: Array<string> = []
    const reasoning: Array<string> = []
    const calls: Array<ToolCall> = []
    for (const { raw, where, type } of yield* translatable(blocks, path, notes)) {
      switch (type) {
        case "text": {
          const block = yield* assistantBlocks.text(raw, where)
          noteBlockExtras(block, notes)
          texts.push(block.text)
          break
        }
        case "tool_use": {
          const block = yield* assistantBlocks.tool_use(raw, where)
          if (block.cache_control != null) notes.drop("cache_control")
          calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input) } })
          break
        }
        case "thinking": {
          const block = yield* assistantBlocks.thinking(raw, where)
          // The signature proves the thinking to Anthropic only; other providers do not take thinking back.
          notes.drop("thinking")
          reasoning.push(block.thinking)
          break
        }
        case "redacted_thinking":
          yield* assistantBlocks.redacted_thinking(raw, where)
          notes.drop("redacted_thinking")
          break
        default:
          return yield* unknownBlock(where, type, [...Object.keys(assistantBlocks), ...anthropicOnlyBlocks])
      }
    }
    if (texts.length === 0 && calls.length === 0) return []
    const message: ChatMessage = {
      role: "assistant",
      content: texts.length === 0 ? null : texts.join(""),
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
      ...(reasoning.length === 0 ? {} : { reasoning_content: reasoning.join("") })
    }
    return [message]
  })

const systemMessages = (system: string | ReadonlyArray<unknown> | undefined, notes: DecodeNotes) =>
  Effect.gen(function* () {
    if (system === undefined) return []
    if (typeof system === "string") return system === "" ? [] : [{ role: "system", content: system } satisfies ChatMessage]
    const parts: Array<TextPart> = []
    for (const [i, raw] of system.entries()) {
      const block = yield* userBlocks.text(raw, ["system", i])
      noteBlockExtras(block, notes)
      parts.push(text(block.text))
    }
    return parts.length === 0 ? [] : [{ role: "system", content: parts } satisfies ChatMessage]
  })

/**
 * `system` and `messages` -> neutral messages: the system prompt first, user turns (tool results
 * as tool messages, then the user's own blocks), assistant turns (text, tool calls, thinking as
 * reasoning). What the neutral form cannot hold is noted, never silently lost.
 * @see https://platform.claude.com/docs/en/api/messages/create (messages, system)
 */
export const messagesConversation = (
  system: string | ReadonlyArray<unknown> | undefined,
  raw: ReadonlyArray<unknown>,
  notes: DecodeNotes
): Effect.Effect<Array<ChatMessage>, GatewayError> =>
  Effect.gen(function* () {
    const out: Array<ChatMessage> = yield* systemMessages(system, notes)
    for (const [i, item] of raw.entries()) {
      const path: Path = ["messages", i]
      if (item === null || typeof item !== "object" || Array.isArray(item)) {
        return yield* GatewayError.invalid(`messages.${i}: Input should be an object`, formatIssuePath(path))
      }
      const m = yield* messageShell(item, path)
      const contentPath = [...path, "content"]
      if (typeof m.content === "string") {
        out.push(m.role === "user" ? { role: "user", content: m.content } : { role: "assistant", content: m.content })
        continue
      }
      out.push(...(m.role === "user" ? yield* userTurn(m.content, contentPath, notes) : yield* assistantTurn(m.content, contentPath, notes)))
    }
    return out
  })
