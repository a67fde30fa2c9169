import * as Schema from "effect/Schema"
import type { RefusalPart, TextPart, UserContentPart } from "./ChatContentPart.ts"
import { ToolCall } from "./ChatTool.ts"
import type { ReasoningDetail } from "./ReasoningDetail.ts"

/**
 * Message shells of spec 2.1. `content` arrays are left as unknown here and decoded part by
 * part (see ChatRequestDecoder), so an unknown part `type` is reported at its own path.
 */
const Parts = Schema.Array(Schema.Unknown)
const Name = Schema.optionalKey(Schema.String)

export const Role = Schema.Literals(["system", "developer", "user", "assistant", "tool"])
export type Role = typeof Role.Type

export const SystemMessageShell = Schema.Struct({
  role: Schema.Literals(["system", "developer"]),
  content: Schema.Union([Schema.String, Parts]),
  name: Name
})

export const UserMessageShell = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Parts]),
  name: Name
})

export const AssistantMessageShell = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Parts]))),
  name: Name,
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCall))),
  reasoning_content: Schema.optionalKey(Schema.NullOr(Schema.String))
})

export const ToolMessageShell = Schema.Struct({
  role: Schema.Literal("tool"),
  content: Schema.Union([Schema.String, Parts]),
  tool_call_id: Schema.NonEmptyString
})

/** Messages after decoding: `developer` is already `system` (spec 2.1 rule). */
export interface SystemMessage {
  readonly role: "system"
  readonly content: string | ReadonlyArray<TextPart>
  readonly name?: string
}
export interface UserMessage {
  readonly role: "user"
  readonly content: string | ReadonlyArray<UserContentPart>
  readonly name?: string
}
export interface AssistantMessage {
  readonly role: "assistant"
  readonly content: string | ReadonlyArray<TextPart | RefusalPart> | null
  readonly name?: string
  readonly refusal?: string | null
  readonly tool_calls?: ReadonlyArray<ToolCall>
  readonly reasoning_content?: string
  /** Set by a dialect that carried it back (never decoded from a chat body): see ReasoningDetail.ts. */
  readonly reasoning_details?: ReadonlyArray<ReasoningDetail>
}
export interface ToolMessage {
  readonly role: "tool"
  readonly content: string | ReadonlyArray<TextPart>
  readonly tool_call_id: string
}
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** The text of a content that may only hold text parts (system, tool, assistant history). */
export const textOf = (content: string | ReadonlyArray<TextPart | RefusalPart> | null): string =>
  content === null
    ? ""
    : typeof content === "string"
      ? content
      : content.map((part) => (part.type === "text" ? part.text : part.refusal)).join("")
