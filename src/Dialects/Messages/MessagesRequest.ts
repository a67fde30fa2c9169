import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ChatMessage } from "../../Domain/ChatMessage.ts"
import type { ChatRequest, ReasoningEffort } from "../../Domain/ChatRequest.ts"
import type { ToolChoice as NeutralToolChoice, ToolDefinition } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { formatIssuePath, schemaErrorToGateway } from "../../Domain/SchemaErrors.ts"
import type { DecodedTranslation, FieldRewrite, ReportedField } from "../../Domain/TranslationReport.ts"
import { originsOf } from "../DialectFields.ts"
import { messagesFields } from "./MessagesFields.ts"
import { DecodeNotes, messagesConversation } from "./MessagesContent.ts"
import { CustomTool, MessagesShell, nativeOnlyFields, type ToolChoice } from "./MessagesWire.ts"

/**
 * A decoded `POST /v1/messages` body: the neutral request every provider but Anthropic gets
 * (through the same codecs as chat completions), and the body as received, which an
 * Anthropic provider gets unchanged (native: thinking signatures, cache control and server
 * tools survive).
 */
export interface MessagesRequest {
  readonly model: string
  readonly stream: boolean
  readonly chat: ChatRequest
  readonly body: Readonly<Record<string, unknown>>
  /**
   * The path of the first part only an Anthropic provider can serve (a server tool, an image in
   * a tool result): the request then goes to Anthropic deployments only, or is refused naming it.
   */
  readonly requiresNative?: string
}

type Path = ReadonlyArray<PropertyKey>

export const decoderAt = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown, path: Path): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), (error) => schemaErrorToGateway(error, path))
}

const shell = decoderAt(MessagesShell)
const customTool = decoderAt(CustomTool)
const known: ReadonlySet<string> = new Set([...Object.keys(MessagesShell.fields), ...nativeOnlyFields])

/** Neutral field -> its Messages name (the report speaks the client's names). */
const fieldOf = originsOf(messagesFields)

const invalid = (param: string, message: string) => GatewayError.invalid(message, param)

/** `budget_tokens` -> the neutral effort, by the same thresholds the Anthropic codec maps back. */
const effortOfBudget = (budget: number): ReasoningEffort => (budget < 4096 ? "low" : budget < 16384 ? "medium" : "high")

const toolChoiceOf = (choice: ToolChoice): NeutralToolChoice => {
  switch (choice.type) {
    case "auto":
      return "auto"
    case "any":
      return "required"
    case "none":
      return "none"
    case "tool":
      return { type: "function", function: { name: choice.name } }
  }
}

const decodeTools = (raw: ReadonlyArray<unknown>, notes: DecodeNotes) =>
  Effect.forEach(raw, (tool, i) => {
    const at: Path = ["tools", i]
    const type = typeof tool === "object" && tool !== null ? (tool as Record<string, unknown>)["type"] : undefined
    if (type !== undefined && type !== null && type !== "custom") {
      // Server tools run at Anthropic; another provider has no such tool.
      notes.serverTools.push(`${formatIssuePath(at)}.type`)
      return Effect.succeed(undefined)
    }
    return Effect.map(customTool(tool, at), (t): ToolDefinition => {
      if (t.cache_control != null) notes.drop("cache_control")
      return {
        type: "function",
        function: {
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.input_schema,
          ...(t.strict === true ? { strict: true } : {})
        }
      }
    })
  })

/** Decodes and validates a Messages API body, naming the field of every violation. */
export const decodeMessagesRequest = (body: Record<string, unknown>): Effect.Effect<MessagesRequest, GatewayError> =>
  Effect.gen(function* () {
    for (const key of Object.keys(body)) {
      if (!known.has(key)) return yield* invalid(key, `${key}: Extra inputs are not permitted`)
    }
    const s = yield* shell(body, [])
    const notes = new DecodeNotes()
    for (const key of Object.keys(body)) if (nativeOnlyFields.has(key)) notes.drop(key)
    const messages: Array<ChatMessage> = yield* messagesConversation(s.system, s.messages, notes)
    const tools = s.tools === undefined ? [] : (yield* decodeTools(s.tools, notes)).filter((t) => t !== undefined)
    const names = new Set<string>()
    for (const [i, tool] of tools.entries()) {
      if (names.has(tool.function.name)) return yield* invalid(`tools[${i}].name`, `tools: Tool names must be unique.`)
      names.add(tool.function.name)
    }
    const choice = s.tool_choice
    if (choice?.type === "tool" && !names.has(choice.name) && notes.serverTools.length === 0) {
      return yield* invalid("tool_choice.name", `tool_choice: the tool '${choice.name}' is not among 'tools'.`)
    }
    const origins: Partial<Record<ReportedField, string>> = { max_completion_tokens: fieldOf.max_completion_tokens! }
    const rewritten: Array<FieldRewrite> = []
    const set = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
    if (s.stop_sequences !== undefined && s.stop_sequences.length > 0) origins.stop = fieldOf.stop!
    const user = s.metadata?.user_id ?? undefined
    if (user !== undefined) origins.user = fieldOf.user!
    let effort: ReasoningEffort | undefined
    if (s.thinking?.type === "enabled") {
      effort = effortOfBudget(s.thinking.budget_tokens)
      origins.reasoning_effort = "thinking.budget_tokens"
    } else if (s.output_config?.effort != null) {
      effort = s.output_config.effort === "max" ? "high" : s.output_config.effort
      origins.reasoning_effort = "output_config.effort"
    } else if (s.thinking?.type === "adaptive") notes.drop("thinking")
    const format = s.output_config?.format ?? undefined
    if (format !== undefined) origins.response_format = fieldOf.response_format!
    const single = choice !== undefined && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true
    if (single) origins.parallel_tool_calls = fieldOf.parallel_tool_calls!
    const hasTools = tools.length > 0
    const translation: DecodedTranslation = { origins, rewritten, dropped: notes.dropped() }
    const stream = s.stream === true
    const chat: ChatRequest = {
      model: s.model,
      messages,
      stream,
      includeUsage: stream,
      n: 1,
      extra: {},
      max_completion_tokens: s.max_tokens,
      ...set("temperature", s.temperature),
      ...set("top_p", s.top_p),
      ...set("top_k", s.top_k),
      ...set("stop", s.stop_sequences !== undefined && s.stop_sequences.length > 0 ? s.stop_sequences : undefined),
      ...set("tools", hasTools ? tools : undefined),
      ...set("tool_choice", hasTools && choice !== undefined ? toolChoiceOf(choice) : undefined),
      ...set("parallel_tool_calls", hasTools && single ? false : undefined),
      ...set("reasoning_effort", effort),
      ...set(
        "response_format",
        format === undefined ? undefined : { type: "json_schema" as const, json_schema: { name: "output", schema: format.schema, strict: true } }
      ),
      ...set("user", user),
      translation
    }
    const requiresNative = notes.serverTools[0] ?? notes.nativeOnly
    return { model: s.model, stream, chat, body, ...(requiresNative === undefined ? {} : { requiresNative }) }
  })
