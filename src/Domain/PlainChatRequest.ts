import { chatTranslation } from "./TranslationReport.ts"
import type { ChatMessage } from "./ChatMessage.ts"
import { type ChatRequest, type ReasoningEffort } from "./ChatRequest.ts"
import type { JsonObject } from "./ChatTool.ts"

/**
 * The request shape almost every call has (text messages, scalar sampling settings) checked
 * by hand, without a schema pass. It accepts only what the schema decoder accepts and builds
 * the same value; anything else (content parts, tools, response formats, any doubtful value,
 * every error) returns `undefined` and goes to the schema decoder, which words the errors.
 */

type Body = Record<string, unknown>

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max
const isIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max

const fail = Symbol("fail")
type Check<A> = A | undefined | typeof fail

// `null` and absence both mean "not set" on the wire.
const optional = <A>(value: unknown, ok: (v: unknown) => v is A): Check<A> =>
  value === undefined || value === null ? undefined : ok(value) ? value : fail

const isString = (v: unknown): v is string => typeof v === "string"
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean"
const efforts: ReadonlySet<unknown> = new Set(["minimal", "low", "medium", "high"])
const isEffort = (v: unknown): v is ReasoningEffort => efforts.has(v)

/** The shell fields handled here; `extra` gets every key outside the schema's list. */
const handled: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "max_completion_tokens",
  "max_tokens",
  "temperature",
  "top_p",
  "n",
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "seed",
  "parallel_tool_calls",
  "reasoning_effort",
  "logprobs",
  "top_logprobs",
  "metadata",
  "user",
  "safety_identifier"
])
/** Shell fields with structured values: always left to the schema decoder when set. */
const structured: ReadonlySet<string> = new Set(["response_format", "tools", "tool_choice", "modalities", "logit_bias"])

const absent = (value: unknown) => value === undefined || value === null

const message = (raw: unknown): ChatMessage | undefined => {
  if (!isObject(raw)) return undefined
  const { role, content, name } = raw
  if (typeof content !== "string" || (name !== undefined && typeof name !== "string")) return undefined
  switch (role) {
    case "system":
    case "developer":
      return name === undefined ? { role: "system", content } : { role: "system", content, name }
    case "user":
      return name === undefined ? { role: "user", content } : { role: "user", content, name }
    case "assistant":
      if (!absent(raw["refusal"]) || !absent(raw["tool_calls"]) || !absent(raw["reasoning_content"])) return undefined
      return name === undefined ? { role: "assistant", content } : { role: "assistant", content, name }
    case "tool": {
      const id = raw["tool_call_id"]
      return typeof id === "string" && id !== "" ? { role: "tool", content, tool_call_id: id } : undefined
    }
    default:
      return undefined
  }
}

const stringRecord = (value: unknown): value is Record<string, string> => {
  if (!isObject(value) || Object.hasOwn(value, "__proto__")) return false
  for (const key in value) if (typeof value[key] !== "string") return false
  return true
}

export const decodePlainChatRequest = (body: Body): ChatRequest | undefined => {
  const model = body["model"]
  const rawMessages = body["messages"]
  if (typeof model !== "string" || model === "" || !Array.isArray(rawMessages) || rawMessages.length === 0) return undefined
  const extra: Record<string, unknown> = {}
  for (const key in body) {
    if (handled.has(key)) continue
    if (structured.has(key)) {
      if (body[key] !== undefined && body[key] !== null) return undefined
      continue
    }
    extra[key] = body[key]
  }
  const messages: Array<ChatMessage> = []
  for (const raw of rawMessages) {
    const m = message(raw)
    if (m === undefined) return undefined
    messages.push(m)
  }
  const stream = optional(body["stream"], isBoolean)
  const streamOptions = optional(body["stream_options"], isObject)
  const maxCompletion = optional(body["max_completion_tokens"], (v): v is number => isInt(v, 1, Number.MAX_SAFE_INTEGER))
  const maxTokens = optional(body["max_tokens"], (v): v is number => isInt(v, 1, Number.MAX_SAFE_INTEGER))
  const temperature = optional(body["temperature"], (v): v is number => isIn(v, 0, 2))
  const topP = optional(body["top_p"], (v): v is number => isIn(v, 0, 1))
  const n = optional(body["n"], (v): v is number => isInt(v, 1, 128))
  const stop = optional(body["stop"], (v): v is string | Array<string> => isString(v) || (Array.isArray(v) && v.length <= 4 && v.every(isString)))
  const presence = optional(body["presence_penalty"], (v): v is number => isIn(v, -2, 2))
  const frequency = optional(body["frequency_penalty"], (v): v is number => isIn(v, -2, 2))
  const seed = optional(body["seed"], (v): v is number => isInt(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))
  const parallel = optional(body["parallel_tool_calls"], isBoolean)
  const effort = optional(body["reasoning_effort"], isEffort)
  const logprobs = optional(body["logprobs"], isBoolean)
  const topLogprobs = optional(body["top_logprobs"], (v): v is number => isInt(v, 0, 20))
  const metadata = optional(body["metadata"], stringRecord)
  const user = optional(body["user"], isString)
  const safety = optional(body["safety_identifier"], isString)
  const includeUsage = streamOptions === undefined || streamOptions === fail ? undefined : optional(streamOptions["include_usage"], isBoolean)
  if (
    stream === fail || streamOptions === fail || includeUsage === fail || maxCompletion === fail || maxTokens === fail ||
    temperature === fail || topP === fail || n === fail || stop === fail || presence === fail || frequency === fail ||
    seed === fail || parallel === fail || effort === fail || logprobs === fail || topLogprobs === fail ||
    metadata === fail || user === fail || safety === fail
  ) {
    return undefined
  }
  // Every cross-field rule the schema path enforces: a violation goes there for its message.
  const streamed = stream === true
  if (streamOptions !== undefined && !streamed) return undefined
  if (temperature !== undefined && topP !== undefined) return undefined
  if (topLogprobs !== undefined && logprobs !== true) return undefined
  if (maxTokens !== undefined && maxCompletion !== undefined && maxTokens !== maxCompletion) return undefined

  const request: { -readonly [K in keyof ChatRequest]: ChatRequest[K] } = {
    model,
    messages,
    stream: streamed,
    includeUsage: streamed && includeUsage === true,
    n: n ?? 1,
    extra: extra as JsonObject
  }
  const maxOut = maxCompletion ?? maxTokens
  if (maxOut !== undefined) request.max_completion_tokens = maxOut
  if (temperature !== undefined) request.temperature = temperature
  if (topP !== undefined) request.top_p = topP
  const stops = stop === undefined ? undefined : typeof stop === "string" ? [stop] : stop
  if (stops !== undefined && stops.length > 0) request.stop = stops
  if (presence !== undefined) request.presence_penalty = presence
  if (frequency !== undefined) request.frequency_penalty = frequency
  if (seed !== undefined) request.seed = seed
  if (parallel !== undefined) request.parallel_tool_calls = parallel
  if (effort !== undefined) request.reasoning_effort = effort
  if (logprobs !== undefined) request.logprobs = logprobs
  if (topLogprobs !== undefined) request.top_logprobs = topLogprobs
  if (metadata !== undefined) request.metadata = { ...metadata }
  const who = user ?? safety
  if (who !== undefined) request.user = who
  const translation = chatTranslation(maxCompletion === undefined && maxTokens !== undefined, user === undefined && safety !== undefined)
  if (translation !== undefined) request.translation = translation
  return request
}
