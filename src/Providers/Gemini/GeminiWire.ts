/**
 * The Gemini API (`generativelanguage.googleapis.com/v1beta`) wire format as this gateway writes
 * and reads it. Requests are typed; responses are read leniently (any field may be missing)
 * with the plain readers below, because the API adds fields often and the hot path avoids
 * schema passes.
 * @see https://ai.google.dev/api/generate-content
 */

import type { JsonRecord } from "../JsonReaders.ts"

export { arr, isRecord, type JsonRecord, num, rec, str } from "../JsonReaders.ts"

/** @see https://ai.google.dev/api/caching#Part */
export type GeminiPart =
  | { readonly text: string; readonly thought?: boolean }
  | { readonly inlineData: { readonly mimeType: string; readonly data: string } }
  | { readonly fileData: { readonly fileUri: string; readonly mimeType?: string } }
  | {
    readonly functionCall: { readonly name: string; readonly args: JsonRecord; readonly id?: string }
    readonly thoughtSignature?: string
  }
  | { readonly functionResponse: { readonly name: string; readonly response: JsonRecord; readonly id?: string } }

/** @see https://ai.google.dev/api/caching#Content */
export interface GeminiContent {
  readonly role: "user" | "model"
  readonly parts: ReadonlyArray<GeminiPart>
}

/** The subset of OpenAPI 3.0 that Gemini's `Schema` object takes. @see https://ai.google.dev/api/caching#Schema */
export type GeminiSchemaType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL"
export interface GeminiSchema {
  type?: GeminiSchemaType
  format?: string
  title?: string
  description?: string
  nullable?: boolean
  enum?: Array<string>
  items?: GeminiSchema
  minItems?: string
  maxItems?: string
  properties?: Record<string, GeminiSchema>
  propertyOrdering?: Array<string>
  required?: Array<string>
  minProperties?: string
  maxProperties?: string
  minLength?: string
  maxLength?: string
  pattern?: string
  minimum?: number
  maximum?: number
  anyOf?: Array<GeminiSchema>
  default?: unknown
  example?: unknown
}

/** @see https://ai.google.dev/api/caching#FunctionDeclaration */
export interface GeminiFunctionDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters?: GeminiSchema
}

/** @see https://ai.google.dev/api/caching#ToolConfig */
export interface GeminiToolConfig {
  readonly functionCallingConfig: {
    readonly mode: "AUTO" | "ANY" | "NONE" | "VALIDATED"
    readonly allowedFunctionNames?: ReadonlyArray<string>
  }
}

/** @see https://ai.google.dev/api/generate-content#v1beta.GenerationConfig */
export interface GeminiGenerationConfig {
  stopSequences?: ReadonlyArray<string>
  responseMimeType?: string
  responseSchema?: GeminiSchema
  candidateCount?: number
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  topK?: number
  seed?: number
  presencePenalty?: number
  frequencyPenalty?: number
  responseLogprobs?: boolean
  logprobs?: number
  thinkingConfig?: { readonly thinkingBudget: number; readonly includeThoughts: boolean }
}

/** @see https://ai.google.dev/api/generate-content#request-body */
export interface GeminiRequestBody {
  readonly contents: ReadonlyArray<GeminiContent>
  readonly systemInstruction?: { readonly parts: ReadonlyArray<{ readonly text: string }> }
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations: ReadonlyArray<GeminiFunctionDeclaration> }>
  readonly toolConfig?: GeminiToolConfig
  readonly generationConfig?: GeminiGenerationConfig
}

/**
 * Finish reasons that mean a safety or policy filter stopped the output (text and image filters alike).
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export const filteredFinishReasons: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION"
])
