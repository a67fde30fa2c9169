import type { AssistantMessage, ChatMessage } from "../../Domain/ChatMessage.ts"
import { textOf } from "../../Domain/ChatMessage.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { userBlock } from "./AnthropicContent.ts"
import { type BlockWire, isRecord, type MessageWire, type TextBlockWire, type ToolUseBlockWire } from "./AnthropicWire.ts"

export interface AnthropicConversation {
  /** Every system (and developer) message, in order, as top-level system text blocks. */
  readonly system: ReadonlyArray<TextBlockWire>
  readonly messages: ReadonlyArray<MessageWire>
}

const textBlocks = (text: string): Array<TextBlockWire> => (text === "" ? [] : [{ type: "text", text }])

/** The model produced these arguments earlier; Anthropic wants them back as an object. */
const toolInput = (args: string, at: string): Record<string, unknown> => {
  if (args.trim() === "") return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    throw GatewayError.invalid(`'${at}' is not valid JSON.`, at)
  }
  if (!isRecord(parsed)) throw GatewayError.invalid(`'${at}' must be a JSON object.`, at)
  return parsed
}

/**
 * Earlier assistant turns. Signed thinking a dialect carried back (`reasoning_details`) goes
 * first, exactly as Anthropic issued it; `reasoning_content` alone is dropped on purpose:
 * Anthropic only accepts thinking blocks back with the signature it issued.
 * @see https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
const assistantBlocks = (m: AssistantMessage, index: number): Array<BlockWire> => {
  const blocks: Array<BlockWire> = []
  for (const detail of m.reasoning_details ?? []) {
    if (detail.provider !== "anthropic") continue
    blocks.push(detail.type === "thinking"
      ? { type: "thinking", thinking: detail.text, signature: detail.signature }
      : { type: "redacted_thinking", data: detail.data })
  }
  blocks.push(...textBlocks(textOf(m.content)))
  for (const [j, call] of (m.tool_calls ?? []).entries()) {
    const use: ToolUseBlockWire = {
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments, `messages[${index}].tool_calls[${j}].function.arguments`)
    }
    blocks.push(use)
  }
  return blocks
}

const turnOf = (m: Exclude<ChatMessage, { role: "system" }>, index: number): MessageWire => {
  switch (m.role) {
    case "user": {
      const blocks =
        typeof m.content === "string"
          ? textBlocks(m.content)
          : m.content.flatMap((part, j) => userBlock(part, `messages[${index}].content[${j}]`) ?? [])
      return { role: "user", content: blocks }
    }
    case "assistant":
      return { role: "assistant", content: assistantBlocks(m, index) }
    case "tool": {
      // `content` is optional on a tool_result: an empty result is sent without it, never as an empty block.
      const text = textOf(m.content)
      return {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: m.tool_call_id, ...(text === "" ? {} : { content: text }) }]
      }
    }
  }
}

/** Anthropic requires a user turn's `tool_result` blocks before any other block. */
const resultsFirst = (turn: MessageWire): MessageWire =>
  turn.role === "assistant"
    ? turn
    : {
      role: "user",
      content: [
        ...turn.content.filter((block) => block.type === "tool_result"),
        ...turn.content.filter((block) => block.type !== "tool_result")
      ]
    }

/** The blocks with the last one marked as the end of the cached prefix. */
const cacheMarked = <B extends BlockWire>(blocks: Array<B>): Array<B> => {
  const last = blocks.at(-1)
  if (last !== undefined) blocks[blocks.length - 1] = { ...last, cache_control: { type: "ephemeral" } }
  return blocks
}

/**
 * Chat messages -> Anthropic's `system` + strictly alternating user/assistant turns.
 * System messages are hoisted (Anthropic has no system role); tool results become `tool_result`
 * blocks of a user turn; consecutive turns of one role are merged, so tool results and a
 * following user message share one turn (results first); turns left empty are dropped.
 * @see https://platform.claude.com/docs/en/api/messages/create (messages, system)
 * With `sharedPrefix` (messages other calls repeat), the last block of that prefix carries
 * `cache_control`, so the API caches everything up to it.
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
 * @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching
 */
export const anthropicConversation = (messages: ReadonlyArray<ChatMessage>, sharedPrefix = 0): AnthropicConversation => {
  const system: Array<TextBlockWire> = []
  const turns: Array<{ role: "user" | "assistant"; content: Array<BlockWire> }> = []
  for (const [index, m] of messages.entries()) {
    const endsPrefix = index === sharedPrefix - 1
    if (m.role === "system") {
      system.push(...textBlocks(textOf(m.content)))
      if (endsPrefix) cacheMarked(system)
      continue
    }
    const turn = turnOf(m, index)
    if (turn.content.length === 0) continue
    const content = endsPrefix ? cacheMarked([...turn.content]) : turn.content
    const last = turns.at(-1)
    if (last !== undefined && last.role === turn.role) last.content.push(...content)
    else turns.push({ role: turn.role, content: [...content] })
  }
  if (turns.length === 0) {
    throw GatewayError.invalid("'messages' needs at least one user or assistant message with content.", "messages")
  }
  return { system, messages: turns.map(resultsFirst) }
}
