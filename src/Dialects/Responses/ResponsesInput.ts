import type { FilePart, ImageUrlPart, TextPart, UserContentPart } from "../../Domain/ChatContentPart.ts"
import type { AssistantMessage, ChatMessage } from "../../Domain/ChatMessage.ts"
import type { JsonObject, ToolCall } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ReasoningDetail } from "../../Domain/ReasoningDetail.ts"
import { openReasoning } from "./ReasoningContent.ts"

/**
 * Responses input items -> chat messages. Items were checked by `checkInputItem` when the request
 * was decoded (or came from the gateway's own store), so this only translates. Consecutive
 * assistant items (a message, its function calls, the reasoning before them) become one
 * assistant message; a `function_call_output` is a tool message; instructions come first as a
 * system message and are never carried over from a previous response.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */

type Item = Readonly<JsonObject>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const invalid = (path: string, message: string) => GatewayError.invalid(message, path)

/** The kinds of input item the gateway translates; `item_reference` is resolved before translation. */
export const inputItemTypes = ["message", "function_call", "function_call_output", "reasoning", "item_reference"] as const

const roles: ReadonlySet<string> = new Set(["user", "assistant", "system", "developer"])
const details: ReadonlySet<string> = new Set(["auto", "low", "high"])

const checkText = (part: Record<string, unknown>, path: string): void => {
  if (typeof part["text"] !== "string") throw invalid(`${path}.text`, `Invalid value for '${path}.text': expected a string.`)
}

/** One content part of an input message, checked for the role that sent it. */
const checkPart = (part: unknown, role: string, path: string): void => {
  if (!isRecord(part)) throw invalid(path, `Invalid value for '${path}': expected a content part object.`)
  const type = part["type"]
  const allowed = role === "assistant" ? ["output_text", "refusal", "input_text"] : role === "user" ? ["input_text", "input_image", "input_file"] : ["input_text"]
  if (typeof type !== "string" || !allowed.includes(type)) {
    throw invalid(`${path}.type`, `Invalid value for '${path}.type': expected one of ${allowed.map((a) => `'${a}'`).join(", ")} in a ${role} message.`)
  }
  switch (type) {
    case "input_text":
    case "output_text":
      return checkText(part, path)
    case "refusal":
      if (typeof part["refusal"] !== "string") throw invalid(`${path}.refusal`, `Invalid value for '${path}.refusal': expected a string.`)
      return
    case "input_image": {
      const url = part["image_url"]
      const fileId = part["file_id"]
      const byId = fileId !== undefined && fileId !== null
      if (byId && url !== undefined && url !== null) throw invalid(path, `'${path}' needs one of 'image_url' or 'file_id', not both.`)
      if (byId && (typeof fileId !== "string" || fileId === "")) {
        throw invalid(`${path}.file_id`, `Invalid value for '${path}.file_id': expected the id of a file uploaded to /v1/files.`)
      }
      if (!byId && (typeof url !== "string" || url === "")) {
        throw invalid(`${path}.image_url`, `Invalid value for '${path}.image_url': expected a URL or a data URL (or give 'file_id').`)
      }
      const detail = part["detail"]
      if (detail !== undefined && detail !== null && !details.has(detail as string)) {
        throw invalid(`${path}.detail`, `Invalid value for '${path}.detail': expected 'auto', 'low' or 'high'.`)
      }
      return
    }
    case "input_file": {
      const sources = ["file_id", "file_data", "file_url"].filter((key) => part[key] !== undefined && part[key] !== null)
      if (sources.length !== 1) throw invalid(path, `'${path}' needs exactly one of 'file_id', 'file_data' or 'file_url'.`)
      for (const key of [...sources, "filename"]) {
        const value = part[key]
        if (value !== undefined && value !== null && (typeof value !== "string" || value === "")) {
          throw invalid(`${path}.${key}`, `Invalid value for '${path}.${key}': expected a non-empty string.`)
        }
      }
      return
    }
  }
}

/**
 * Checks one input item and gives it back with its `type` made explicit (an easy input message
 * may omit it). Throws a GatewayError naming the field.
 */
export const checkInputItem = (raw: unknown, index: number): Item => {
  const path = `input[${index}]`
  if (!isRecord(raw)) throw invalid(path, `Invalid value for '${path}': expected an input item object.`)
  const type = raw["type"] ?? (raw["role"] !== undefined ? "message" : undefined)
  switch (type) {
    case "message": {
      const role = raw["role"]
      if (typeof role !== "string" || !roles.has(role)) {
        throw invalid(`${path}.role`, `Invalid value for '${path}.role': expected 'user', 'assistant', 'system' or 'developer'.`)
      }
      const content = raw["content"]
      if (Array.isArray(content)) content.forEach((part, j) => checkPart(part, role, `${path}.content[${j}]`))
      else if (typeof content !== "string") throw invalid(`${path}.content`, `Invalid value for '${path}.content': expected a string or an array of content parts.`)
      return { ...raw, type: "message" }
    }
    case "function_call": {
      for (const key of ["call_id", "name", "arguments"]) {
        if (typeof raw[key] !== "string" || (key !== "arguments" && raw[key] === "")) {
          throw invalid(`${path}.${key}`, `Invalid value for '${path}.${key}': expected a${key === "arguments" ? "" : " non-empty"} string.`)
        }
      }
      return raw
    }
    case "function_call_output": {
      if (typeof raw["call_id"] !== "string" || raw["call_id"] === "") {
        throw invalid(`${path}.call_id`, `Invalid value for '${path}.call_id': expected a non-empty string.`)
      }
      const output = raw["output"]
      if (Array.isArray(output)) {
        output.forEach((part, j) => {
          const at = `${path}.output[${j}]`
          if (!isRecord(part) || part["type"] !== "input_text") {
            throw invalid(`${at}.type`, `Invalid value for '${at}.type': only 'input_text' parts can be sent back as a function's output.`)
          }
          checkText(part, at)
        })
      } else if (typeof output !== "string") {
        throw invalid(`${path}.output`, `Invalid value for '${path}.output': expected a string or an array of 'input_text' parts.`)
      }
      return raw
    }
    case "reasoning": {
      if (!Array.isArray(raw["summary"])) throw invalid(`${path}.summary`, `Invalid value for '${path}.summary': expected an array.`)
      return raw
    }
    case "item_reference": {
      if (typeof raw["id"] !== "string" || raw["id"] === "") throw invalid(`${path}.id`, `Invalid value for '${path}.id': expected a non-empty string.`)
      return raw
    }
    default:
      throw invalid(
        `${path}.type`,
        typeof type === "string"
          ? `The input item type '${type}' is not supported by this gateway; supported: ${inputItemTypes.map((t) => `'${t}'`).join(", ")}.`
          : `Invalid value for '${path}.type': expected one of ${inputItemTypes.map((t) => `'${t}'`).join(", ")}.`
      )
  }
}

const textOfParts = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as ReadonlyArray<Record<string, unknown>>).map((part) => str(part["text"]) ?? str(part["refusal"]) ?? "").join("")

const userPart = (part: Record<string, unknown>): UserContentPart => {
  switch (part["type"]) {
    case "input_image": {
      const detail = str(part["detail"]) as ImageUrlPart["image_url"]["detail"]
      return { type: "image_url", image_url: { url: part["image_url"] as string, ...(detail === undefined ? {} : { detail }) } }
    }
    case "input_file": {
      const file: { -readonly [K in keyof FilePart["file"]]: FilePart["file"][K] } = {}
      for (const key of ["file_id", "file_data", "file_url", "filename"] as const) {
        const value = str(part[key])
        if (value !== undefined) file[key] = value
      }
      return { type: "file", file }
    }
    default:
      return { type: "text", text: str(part["text"]) ?? "" } satisfies TextPart
  }
}

/** What an item contributes to the assistant turn being built. */
interface AssistantTurn {
  text: string
  refusal: string
  calls: Array<ToolCall>
  reasoning: string
  details: Array<ReasoningDetail>
}

/**
 * The conversation as chat messages. `instructions` (this request's only) is the first system
 * message; `items` are the previous response's items, if any, then this request's input.
 */
export const conversationOf = (instructions: string | undefined, items: ReadonlyArray<Item>): Array<ChatMessage> => {
  const messages: Array<ChatMessage> = []
  if (instructions !== undefined && instructions !== "") messages.push({ role: "system", content: instructions })
  let turn: AssistantTurn | undefined
  const flush = () => {
    if (turn === undefined) return
    const t = turn
    turn = undefined
    if (t.text === "" && t.calls.length === 0) return
    const message: AssistantMessage = {
      role: "assistant",
      content: t.text === "" ? null : t.text,
      ...(t.refusal === "" ? {} : { refusal: t.refusal }),
      ...(t.calls.length === 0 ? {} : { tool_calls: t.calls }),
      ...(t.reasoning === "" ? {} : { reasoning_content: t.reasoning }),
      ...(t.details.length === 0 ? {} : { reasoning_details: t.details })
    }
    messages.push(message)
  }
  const assistant = (): AssistantTurn => (turn ??= { text: "", refusal: "", calls: [], reasoning: "", details: [] })
  for (const item of items) {
    switch (item["type"]) {
      case "message": {
        const role = item["role"]
        const content = item["content"]
        if (role === "assistant") {
          const current = assistant()
          if (typeof content === "string") current.text += content
          else {
            for (const part of content as ReadonlyArray<Record<string, unknown>>) {
              if (part["type"] === "refusal") current.refusal += str(part["refusal"]) ?? ""
              else current.text += str(part["text"]) ?? ""
            }
          }
          break
        }
        flush()
        if (role === "user") {
          messages.push({
            role: "user",
            content: typeof content === "string" ? content : (content as ReadonlyArray<Record<string, unknown>>).map(userPart)
          })
        } else {
          messages.push({ role: "system", content: textOfParts(content) })
        }
        break
      }
      case "function_call":
        assistant().calls.push({
          id: item["call_id"] as string,
          type: "function",
          function: { name: item["name"] as string, arguments: item["arguments"] as string }
        })
        break
      case "reasoning": {
        const parts = [...((item["summary"] as ReadonlyArray<Record<string, unknown>>) ?? []), ...((item["content"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? [])]
        const current = assistant()
        current.reasoning += parts.map((part) => str(part["text"]) ?? "").join("")
        current.details.push(...openReasoning(item["encrypted_content"]))
        break
      }
      case "function_call_output":
        flush()
        messages.push({ role: "tool", tool_call_id: item["call_id"] as string, content: textOfParts(item["output"]) })
        break
    }
  }
  flush()
  return messages
}
