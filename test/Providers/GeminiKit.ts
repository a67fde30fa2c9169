import { expect } from "@effect/vitest"
import { Redacted } from "effect"
import type { RecordedRequest } from "../support/FakeUpstream.ts"
import type { ProviderKit } from "./ProviderKit.ts"

/**
 * Bodies in the Gemini API's wire format (`GenerateContentResponse`, google.rpc errors), as
 * `generativelanguage.googleapis.com/v1beta` returns them. Gemini frames SSE with CRLF.
 * @see https://ai.google.dev/api/generate-content
 */

export const geminiFrame = (value: unknown): string => `data: ${JSON.stringify(value)}\r\n\r\n`

const usage = (prompt: number, candidates: number, extra: Record<string, unknown> = {}) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: prompt + candidates + (typeof extra["thoughtsTokenCount"] === "number" ? extra["thoughtsTokenCount"] : 0),
  promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  ...extra
})

export const geminiResponse = (
  parts: ReadonlyArray<Record<string, unknown>>,
  options: { readonly finishReason?: string | null; readonly usage?: Record<string, unknown> } = {}
) => ({
  candidates: [
    {
      content: { parts, role: "model" },
      ...(options.finishReason === null ? {} : { finishReason: options.finishReason ?? "STOP" }),
      index: 0
    }
  ],
  ...(options.usage === undefined ? {} : { usageMetadata: options.usage }),
  modelVersion: "gemini-2.5-flash",
  responseId: "mK2kaPbWJ6Tz7M8Pt8SRsQc"
})

const rpcError = (code: number, status: string, message: string, details: ReadonlyArray<unknown> = []) => ({
  error: { code, message, status, ...(details.length === 0 ? {} : { details }) }
})

const body = (request: RecordedRequest) => request.body as Record<string, any>
const callingConfig = (request: RecordedRequest) => body(request).toolConfig?.functionCallingConfig

export const geminiKit: ProviderKit = {
  name: "gemini",
  config: (baseUrl) => ({
    id: "gemini",
    kind: "gemini",
    base_url: `${baseUrl}/v1beta`,
    api_key: Redacted.make("AIza-upstream"),
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000, total_ms: 10000 }
  }),
  text: { kind: "json", status: 200, body: geminiResponse([{ text: "Hello there!" }], { usage: usage(19, 10) }) },
  textStream: {
    kind: "sse",
    frames: [
      geminiFrame(geminiResponse([{ text: "Hel" }], { finishReason: null, usage: usage(12, 1) })),
      geminiFrame(geminiResponse([{ text: "lo" }], { usage: usage(12, 3) }))
    ]
  },
  toolCall: {
    kind: "json",
    status: 200,
    body: geminiResponse([{ functionCall: { name: "get_weather", args: { city: "Paris" } } }], { usage: usage(40, 6) })
  },
  parallelToolStream: {
    kind: "sse",
    frames: [
      geminiFrame(
        geminiResponse(
          [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_time", args: { tz: "CET" } } }],
          { usage: usage(52, 14) }
        )
      )
    ]
  },
  jsonSchema: { kind: "json", status: 200, body: geminiResponse([{ text: "{\"answer\":42}" }], { usage: usage(30, 5) }) },
  reportsCacheWrites: false,
  cachedUsage: {
    kind: "json",
    status: 200,
    body: geminiResponse([{ text: "Hello there!" }], {
      usage: usage(100, 5, { cachedContentTokenCount: 60, cacheTokensDetails: [{ modality: "TEXT", tokenCount: 60 }] })
    })
  },
  rateLimited: {
    kind: "json",
    status: 429,
    body: rpcError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.", [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }]
      },
      { "@type": "type.googleapis.com/google.rpc.Help", links: [{ description: "Learn more about Gemini API quotas", url: "https://ai.google.dev/gemini-api/docs/rate-limits" }] },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }
    ])
  },
  serverError: {
    kind: "json",
    status: 500,
    body: rpcError(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
  },
  malformed: { kind: "raw", status: 200, body: "{\"candidates\": [{\"content\": {\"parts\": [" },
  badRequest: { kind: "json", status: 400, body: rpcError(400, "INVALID_ARGUMENT", "bad things") },
  assertImage: (request, base64) => {
    const parts = body(request).contents[0].parts as Array<any>
    expect(parts).toContainEqual({ inlineData: { mimeType: "image/png", data: base64 } })
  },
  assertForcedTool: (request, name) => expect(callingConfig(request)).toEqual({ mode: "ANY", allowedFunctionNames: [name] }),
  assertNoTools: (request) => expect(callingConfig(request)).toEqual({ mode: "NONE" }),
  assertAnyTool: (request) => expect(callingConfig(request)).toEqual({ mode: "ANY" }),
  assertJsonSchema: (request, schema) => {
    const config = body(request).generationConfig
    expect(config.responseMimeType).toBe("application/json")
    // The schema in Gemini's OpenAPI subset: upper-case types, the same properties and required list.
    const properties = schema["properties"] as Record<string, { type: string }>
    expect(config.responseSchema).toEqual({
      type: "OBJECT",
      properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { type: v.type.toUpperCase() }])),
      required: schema["required"],
      ...(Object.keys(properties).length > 1 ? { propertyOrdering: Object.keys(properties) } : {})
    })
  },
  assertStreaming: (request) => {
    expect(request.url).toBe("/v1beta/models/up-model:streamGenerateContent?alt=sse")
    expect(request.headers["x-goog-api-key"]).toBe("AIza-upstream")
  }
}
