import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { ChatRequest } from "../../src/Domain/ChatRequest.ts"
import { advisoryFields } from "../../src/Domain/ChatRequest.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { reportedFields, reportHeader, type ReportedField, translationReport } from "../../src/Domain/TranslationReport.ts"
import { anthropicRequestBody } from "../../src/Providers/Anthropic/AnthropicRequest.ts"
import { geminiRequestBody } from "../../src/Providers/Gemini/GeminiRequest.ts"
import { profileFor, profiles } from "../../src/Providers/OpenAiCompatible/Profiles.ts"
import { openAiRequestBody } from "../../src/Providers/OpenAi/OpenAiRequest.ts"
import { providerFields } from "../../src/Providers/ProviderFields.ts"

/**
 * The field tables are capability data (the translation report, strict mode and the docs'
 * tables are built from them), so each is checked against its codec: a field the table says is
 * sent appears in the upstream body under that name, a dropped or implicit one changes nothing
 * in the body, a refused one makes the codec refuse the request naming it.
 */
const model = Schema.decodeUnknownSync(ModelConfig)({
  id: "m",
  kind: "chat",
  deployments: [{ provider: "p", model: "up" }],
  capabilities: { tools: true, structured_output: true, logprobs: true, vision: true }
})
const target = { upstreamModel: "up", model }
const base: ChatRequest = { model: "m", messages: [{ role: "user", content: "hi" }], stream: false, includeUsage: false, n: 1, extra: {} }
const schema = { type: "object", properties: { a: { type: "string" } } }
const samples: { readonly [K in ReportedField]: Partial<ChatRequest> } = {
  max_completion_tokens: { max_completion_tokens: 100 },
  temperature: { temperature: 0.5 },
  top_p: { top_p: 0.9 },
  top_k: { top_k: 5 },
  stop: { stop: ["END"] },
  seed: { seed: 7 },
  presence_penalty: { presence_penalty: 0.5 },
  frequency_penalty: { frequency_penalty: 0.5 },
  n: { n: 2 },
  response_format: { response_format: { type: "json_schema", json_schema: { name: "out", schema } } },
  tools: { tools: [{ type: "function", function: { name: "f", parameters: schema } }] },
  tool_choice: { tools: [{ type: "function", function: { name: "f", parameters: schema } }], tool_choice: "required" },
  // `true` is every provider's default and counts as not set; `false` is what a table describes.
  parallel_tool_calls: { tools: [{ type: "function", function: { name: "f", parameters: schema } }], parallel_tool_calls: false },
  reasoning_effort: { reasoning_effort: "low" },
  modalities: { modalities: ["text"] },
  logprobs: { logprobs: true },
  top_logprobs: { logprobs: true, top_logprobs: 2 },
  logit_bias: { logit_bias: { "42": 1 } },
  metadata: { metadata: { team: "a" } },
  user: { user: "u-1" }
}
// Sample fields that need another one set (the codec reads them together): compared against that one alone.
const context: Partial<Record<ReportedField, Partial<ChatRequest>>> = {
  tool_choice: samples.tools,
  parallel_tool_calls: samples.tools,
  top_logprobs: samples.logprobs
}

/** A dotted path into a body; an array stands for its first element (`tools.functionDeclarations`). */
const get = (body: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => {
    const item = Array.isArray(value) ? value[0] : value
    return item !== null && typeof item === "object" ? (item as Record<string, unknown>)[key] : undefined
  }, body)

const codecs = [
  { name: "openai", provider: { kind: "openai" as const }, body: (r: ChatRequest) => openAiRequestBody(r, target, profiles["openai"]!, false) },
  { name: "groq", provider: { kind: "openai-compatible" as const, profile: "groq" }, body: (r: ChatRequest) => openAiRequestBody(r, target, profileFor("groq"), false) },
  { name: "vllm", provider: { kind: "openai-compatible" as const, profile: "vllm" }, body: (r: ChatRequest) => openAiRequestBody(r, target, profileFor("vllm"), false) },
  { name: "anthropic", provider: { kind: "anthropic" as const }, body: (r: ChatRequest) => anthropicRequestBody(r, target, false) },
  { name: "gemini", provider: { kind: "gemini" as const }, body: (r: ChatRequest) => geminiRequestBody(r, target) }
]

const attempt = (f: () => unknown): { readonly body?: unknown; readonly error?: GatewayError } => {
  try {
    return { body: f() }
  } catch (error) {
    if (error instanceof GatewayError) return { error }
    throw error
  }
}

describe.each(codecs)("the $name field table matches its codec", ({ provider, body }) => {
  const table = providerFields(provider, model).fields
  it.each(reportedFields)("%s", (field) => {
    const fate = table[field]
    const withField = attempt(() => body({ ...base, ...samples[field] }))
    const without = () => body({ ...base, ...context[field] })
    switch (fate.fate) {
      case "sent":
        expect(withField.error).toBeUndefined()
        expect(get(withField.body, fate.as)).toBeDefined()
        return
      case "dropped":
      case "implicit":
        expect(withField.error).toBeUndefined()
        expect(withField.body).toEqual(without())
        return
      case "refused":
        expect(withField.error?.reason).toMatchObject({ _tag: "InvalidRequest" })
        return
    }
  })
})

describe("the translation report", () => {
  const messagesOrigins = { origins: { max_completion_tokens: "max_tokens", stop: "stop_sequences" }, rewritten: [], dropped: ["cache_control"] }
  const request: ChatRequest = { ...base, max_completion_tokens: 100, top_k: 5, stop: ["x"], temperature: 0.2, translation: messagesOrigins }

  it("names the client's fields: Messages to OpenAI rewrites max_tokens and drops top_k", () => {
    const report = translationReport(request, providerFields({ kind: "openai" }, model), advisoryFields)
    expect(report.dropped).toEqual(["cache_control", "top_k"])
    expect(report.rewritten).toEqual([{ from: "max_tokens", to: "max_completion_tokens" }, { from: "stop_sequences", to: "stop" }])
    expect(report.mapped).toEqual(["temperature"])
    expect(reportHeader(report)).toBe("dropped=cache_control,top_k; rewritten=max_tokens->max_completion_tokens,stop_sequences->stop")
  })

  it("the same request to Anthropic maps the fields under their own names", () => {
    const report = translationReport(request, providerFields({ kind: "anthropic" }, model), advisoryFields)
    expect(report.rewritten).toEqual([])
    expect(report.mapped).toEqual(["max_tokens", "temperature", "top_k", "stop_sequences"])
  })

  it("a chat request with max_tokens to a max_tokens server maps it; nothing to report, no header", () => {
    const chat: ChatRequest = { ...base, max_completion_tokens: 10, translation: { origins: { max_completion_tokens: "max_tokens" }, rewritten: [], dropped: [] } }
    const report = translationReport(chat, providerFields({ kind: "openai-compatible", profile: "groq" }, model), advisoryFields)
    expect(report.mapped).toEqual(["max_tokens"])
    expect(reportHeader(report)).toBeUndefined()
  })

  it("advisory fields the provider ignores are reported dropped", () => {
    const report = translationReport({ ...base, extra: { store: true } }, providerFields({ kind: "gemini" }, model), advisoryFields)
    expect(report.dropped).toEqual(["store"])
  })
})
