/**
 * The translation report: what happened to each field of a client's request on its way to the
 * provider that served it. Two steps contribute. The dialect decoder (chat completions,
 * Responses, Messages) knows which client field each neutral field came from, and what it
 * could not carry into the neutral request at all; the serving provider's field table
 * (capability data in each provider's folder) says, per neutral field, under which name the
 * provider receives it, or that it drops or refuses it. Names in the report are the client's
 * on the left and the provider's on the right, e.g. `max_tokens->max_completion_tokens`.
 */

/** The neutral request fields a translation can map, rewrite or drop (`ChatRequest`'s names). */
export const reportedFields = [
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "response_format",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning_effort",
  "modalities",
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "metadata",
  "user"
] as const
export type ReportedField = (typeof reportedFields)[number]

/**
 * What a provider does with a neutral field: sends it under a name, behaves so by default without
 * being told (`implicit`), drops it, or refuses the request (400 naming it).
 */
export type FieldFate =
  | { readonly fate: "sent"; readonly as: string }
  | { readonly fate: "implicit" }
  | { readonly fate: "dropped" }
  | { readonly fate: "refused" }

export const sentAs = (as: string): FieldFate => ({ fate: "sent", as })
export const implicit: FieldFate = { fate: "implicit" }
export const dropped: FieldFate = { fate: "dropped" }
export const refused: FieldFate = { fate: "refused" }

/**
 * A provider's field table for one model. `extra` is what happens to top-level fields the
 * gateway does not model: passed unchanged (OpenAI-style servers), or only the advisory ones
 * accepted and dropped (the rest are refused by name).
 */
export interface ProviderFields {
  readonly fields: Readonly<Record<ReportedField, FieldFate>>
  readonly extra: "sent" | "advisory-dropped"
}

export interface FieldRewrite {
  readonly from: string
  readonly to: string
}

/** The dialect decoder's part: origins of neutral fields, and its own rewrites and drops. */
export interface DecodedTranslation {
  /** Neutral field -> the client's field, where the names differ (`max_completion_tokens` <- `max_tokens`). */
  readonly origins: Readonly<Partial<Record<ReportedField, string>>>
  readonly rewritten: ReadonlyArray<FieldRewrite>
  readonly dropped: ReadonlyArray<string>
}

export interface TranslationReport {
  readonly mapped: ReadonlyArray<string>
  readonly rewritten: ReadonlyArray<FieldRewrite>
  readonly dropped: ReadonlyArray<string>
}

export const emptyReport: TranslationReport = { mapped: [], rewritten: [], dropped: [] }

/** What the report reads of a neutral request (`ChatRequest` is one; kept structural so neither file imports the other). */
export type ReportedRequest = { readonly [K in ReportedField]?: unknown } & {
  readonly extra: Readonly<Record<string, unknown>>
  readonly translation?: DecodedTranslation
}

const isSet = (request: ReportedRequest, field: ReportedField): boolean => {
  const value = request[field]
  // The defaults of every provider: `n` 1 and parallel tool calls need no translation.
  return field === "n" ? value !== 1 : field === "parallel_tool_calls" ? value === false : value !== undefined
}

/**
 * The report of `request` (decoded by a dialect) served by a provider with `table`. Refused
 * fields are not in it: the provider's codec refuses the request with a 400 naming them.
 * `advisory` lists the unmodelled top-level fields a provider may drop.
 */
export const translationReport = (
  request: ReportedRequest,
  table: ProviderFields,
  advisory: ReadonlySet<string>
): TranslationReport => {
  const decoded = request.translation
  const mapped: Array<string> = []
  const rewritten: Array<FieldRewrite> = [...(decoded?.rewritten ?? [])]
  const droppedFields: Array<string> = [...(decoded?.dropped ?? [])]
  for (const field of reportedFields) {
    if (!isSet(request, field)) continue
    const client = decoded?.origins[field] ?? field
    const fate = table.fields[field]
    if (fate.fate === "sent") {
      if (fate.as === client) mapped.push(client)
      else rewritten.push({ from: client, to: fate.as })
    } else if (fate.fate === "implicit") mapped.push(client)
    else if (fate.fate === "dropped") droppedFields.push(client)
  }
  for (const key of Object.keys(request.extra)) {
    if (table.extra === "sent") mapped.push(key)
    else if (advisory.has(key)) droppedFields.push(key)
  }
  return { mapped, rewritten, dropped: droppedFields }
}

/**
 * The `x-gateway-translation` header: `dropped=top_k,seed; rewritten=max_tokens->max_completion_tokens`.
 * `undefined` when nothing was dropped or rewritten (every field reached the provider as sent).
 */
export const reportHeader = (report: TranslationReport): string | undefined => {
  const parts: Array<string> = []
  if (report.dropped.length > 0) parts.push(`dropped=${report.dropped.join(",")}`)
  if (report.rewritten.length > 0) parts.push(`rewritten=${report.rewritten.map((r) => `${r.from}->${r.to}`).join(",")}`)
  return parts.length === 0 ? undefined : parts.join("; ")
}

/** The first field strict mode refuses the request on, if any. */
export const strictViolation = (report: TranslationReport): string | undefined => report.dropped[0]

const none: ReadonlyArray<never> = []
const chatAliases = {
  maxTokens: { origins: { max_completion_tokens: "max_tokens" }, rewritten: none, dropped: none },
  safety: { origins: { user: "safety_identifier" }, rewritten: none, dropped: none },
  both: { origins: { max_completion_tokens: "max_tokens", user: "safety_identifier" }, rewritten: none, dropped: none }
} as const satisfies Record<string, DecodedTranslation>

/**
 * The chat decoder's part: the two aliases it resolves (`max_tokens`, `safety_identifier`).
 * Shared constants, so the common request (neither alias) allocates nothing.
 */
export const chatTranslation = (maxTokensAlias: boolean, safetyAlias: boolean): DecodedTranslation | undefined =>
  maxTokensAlias ? (safetyAlias ? chatAliases.both : chatAliases.maxTokens) : safetyAlias ? chatAliases.safety : undefined
