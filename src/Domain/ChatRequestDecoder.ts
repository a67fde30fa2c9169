import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import {
  assistantPartSchemas,
  type RefusalPart,
  type TextPart,
  textPartSchemas,
  type UserContentPart,
  userPartSchemas
} from "./ChatContentPart.ts"
import {
  AssistantMessageShell,
  type ChatMessage,
  Role,
  SystemMessageShell,
  ToolMessageShell,
  UserMessageShell
} from "./ChatMessage.ts"
import { type ChatRequest, ChatRequestShell } from "./ChatRequest.ts"
import type { JsonObject } from "./ChatTool.ts"
import { GatewayError } from "./GatewayError.ts"
import { checkInlineData } from "./InlineData.ts"
import { decodePlainChatRequest } from "./PlainChatRequest.ts"
import { formatIssuePath, schemaErrorToGateway } from "./SchemaErrors.ts"
import { chatTranslation } from "./TranslationReport.ts"

type Path = ReadonlyArray<PropertyKey>

const decoderAt = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown, path: Path): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), (error) => schemaErrorToGateway(error, path))
}

const roleOf = decoderAt(Schema.Struct({ role: Role }))
const typeOf = (allowed: ReadonlyArray<string>) =>
  decoderAt(Schema.Struct({ type: Schema.Literals(allowed as [string, ...Array<string>]) }))

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const mustBeObject = (value: unknown, path: Path, what: string) =>
  isObject(value)
    ? Effect.succeed(value)
    : Effect.fail(GatewayError.invalid(`Invalid value for '${formatIssuePath(path)}': expected ${what} object.`, formatIssuePath(path)))

/** Decodes a content array part by part so an unknown `type` is reported at `...content[i].type`. */
const partsDecoder = <Schemas extends Record<string, Schema.Decoder<unknown>>>(schemas: Schemas) => {
  const type = typeOf(Object.keys(schemas))
  const decoders = Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, decoderAt(s)])) as {
    [K in keyof Schemas]: (input: unknown, path: Path) => Effect.Effect<Schemas[K]["Type"], GatewayError>
  }
  return (parts: ReadonlyArray<unknown>, path: Path) =>
    Effect.forEach(parts, (part, i) =>
      Effect.gen(function* () {
        const at = [...path, i]
        yield* mustBeObject(part, at, "a content part")
        const { type: kind } = yield* type(part, at)
        return (yield* decoders[kind as keyof Schemas]!(part, at)) as Schemas[keyof Schemas]["Type"]
      })
    )
}

const userParts = partsDecoder(userPartSchemas)
const textParts = partsDecoder(textPartSchemas)
const assistantParts = partsDecoder(assistantPartSchemas)
const systemShell = decoderAt(SystemMessageShell)
const userShell = decoderAt(UserMessageShell)
const assistantShell = decoderAt(AssistantMessageShell)
const toolShell = decoderAt(ToolMessageShell)

const decodeMessage = (raw: unknown, index: number) =>
  Effect.gen(function* () {
    const path: Path = ["messages", index]
    yield* mustBeObject(raw, path, "a message")
    const { role } = yield* roleOf(raw, path)
    const contentPath = [...path, "content"]
    switch (role) {
      case "system":
      case "developer": {
        const m = yield* systemShell(raw, path)
        const content = typeof m.content === "string" ? m.content : ((yield* textParts(m.content, contentPath)) as ReadonlyArray<TextPart>)
        return { role: "system", content, ...(m.name === undefined ? {} : { name: m.name }) } satisfies ChatMessage
      }
      case "user": {
        const m = yield* userShell(raw, path)
        const content =
          typeof m.content === "string" ? m.content : ((yield* userParts(m.content, contentPath)) as ReadonlyArray<UserContentPart>)
        return { role: "user", content, ...(m.name === undefined ? {} : { name: m.name }) } satisfies ChatMessage
      }
      case "assistant": {
        const m = yield* assistantShell(raw, path)
        const content =
          m.content === undefined || m.content === null
            ? null
            : typeof m.content === "string"
              ? m.content
              : ((yield* assistantParts(m.content, contentPath)) as ReadonlyArray<TextPart | RefusalPart>)
        const toolCalls = m.tool_calls ?? undefined
        if (content === null && (toolCalls === undefined || toolCalls.length === 0)) {
          return yield* GatewayError.invalid(
            `Invalid value for '${formatIssuePath(contentPath)}': an assistant message needs content or tool_calls.`,
            formatIssuePath(contentPath)
          )
        }
        return {
          role: "assistant",
          content,
          ...(m.name === undefined ? {} : { name: m.name }),
          ...(m.refusal === undefined || m.refusal === null ? {} : { refusal: m.refusal }),
          ...(toolCalls === undefined || toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
          ...(m.reasoning_content === undefined || m.reasoning_content === null ? {} : { reasoning_content: m.reasoning_content })
        } satisfies ChatMessage
      }
      case "tool": {
        const m = yield* toolShell(raw, path)
        const content = typeof m.content === "string" ? m.content : ((yield* textParts(m.content, contentPath)) as ReadonlyArray<TextPart>)
        return { role: "tool", content, tool_call_id: m.tool_call_id } satisfies ChatMessage
      }
    }
  })

const shell = decoderAt(ChatRequestShell)
const knownFields: ReadonlySet<string> = new Set(Object.keys(ChatRequestShell.fields))

const invalid = (param: string, message: string) => Effect.fail(GatewayError.invalid(message, param))

/** Decodes and validates a chat request body (spec 4.1), naming the field of every violation. */
export const decodeChatRequest = (body: Record<string, unknown>): Effect.Effect<ChatRequest, GatewayError> => {
  const plain = decodePlainChatRequest(body)
  return plain === undefined ? decodeChatRequestBySchema(body) : Effect.succeed(plain)
}

/** The schema path: every shape the API allows, and the error for every one it does not. */
export const decodeChatRequestBySchema = (body: Record<string, unknown>): Effect.Effect<ChatRequest, GatewayError> =>
  Effect.gen(function* () {
    const s = yield* shell(body, [])
    const messages = yield* Effect.forEach(s.messages, decodeMessage)
    const badData = checkInlineData(messages)
    if (badData !== undefined) return yield* badData
    const stream = s.stream === true
    if (s.stream_options != null && !stream) {
      return yield* invalid("stream_options", "'stream_options' is only allowed when 'stream' is true.")
    }
    if (s.temperature != null && s.top_p != null) {
      return yield* invalid("top_p", "Set either 'temperature' or 'top_p', not both.")
    }
    if (s.top_logprobs != null && s.logprobs !== true) {
      return yield* invalid("top_logprobs", "'top_logprobs' requires 'logprobs' to be true.")
    }
    if (s.max_tokens != null && s.max_completion_tokens != null && s.max_tokens !== s.max_completion_tokens) {
      return yield* invalid("max_tokens", "'max_tokens' is an alias of 'max_completion_tokens'; set only one.")
    }
    const tools = s.tools ?? undefined
    const choice = s.tool_choice ?? undefined
    if (choice !== undefined && choice !== "none" && choice !== "auto" && (tools === undefined || tools.length === 0)) {
      return yield* invalid("tool_choice", "'tool_choice' requires 'tools'.")
    }
    if (typeof choice === "object" && !tools?.some((t) => t.function.name === choice.function.name)) {
      return yield* invalid(
        "tool_choice.function.name",
        `'tool_choice' names the function '${choice.function.name}', which is not among 'tools'.`
      )
    }
    const names = new Set<string>()
    for (const [i, tool] of (tools ?? []).entries()) {
      if (names.has(tool.function.name)) {
        return yield* invalid(`tools[${i}].function.name`, `Duplicate function name '${tool.function.name}' in 'tools'.`)
      }
      names.add(tool.function.name)
    }
    const extra: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(body)) if (!knownFields.has(key)) extra[key] = value
    const stop = s.stop == null ? undefined : typeof s.stop === "string" ? [s.stop] : s.stop
    const user = s.user ?? s.safety_identifier ?? undefined
    const maxTokens = s.max_completion_tokens ?? s.max_tokens ?? undefined
    const translation = chatTranslation(s.max_completion_tokens == null && s.max_tokens != null, s.user == null && s.safety_identifier != null)
    const set = <K extends string, V>(key: K, value: V | null | undefined) =>
      (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
    return {
      model: s.model,
      messages,
      stream,
      includeUsage: stream && s.stream_options?.include_usage === true,
      n: s.n ?? 1,
      extra: extra as JsonObject,
      ...set("max_completion_tokens", maxTokens),
      ...set("temperature", s.temperature),
      ...set("top_p", s.top_p),
      ...set("stop", stop && stop.length > 0 ? stop : undefined),
      ...set("presence_penalty", s.presence_penalty),
      ...set("frequency_penalty", s.frequency_penalty),
      ...set("seed", s.seed),
      ...set("response_format", s.response_format),
      ...set("tools", tools && tools.length > 0 ? tools : undefined),
      ...set("tool_choice", choice),
      ...set("parallel_tool_calls", s.parallel_tool_calls),
      ...set("reasoning_effort", s.reasoning_effort),
      ...set("modalities", s.modalities),
      ...set("logprobs", s.logprobs),
      ...set("top_logprobs", s.top_logprobs),
      ...set("logit_bias", s.logit_bias),
      ...set("metadata", s.metadata),
      ...set("user", user),
      ...set("translation", translation)
    } satisfies ChatRequest
  })
