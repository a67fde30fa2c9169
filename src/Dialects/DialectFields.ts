import type { ReportedField } from "../Domain/TranslationReport.ts"

/**
 * A dialect's fields as capability data: each client field and the neutral field it becomes
 * (none for a field only the dialect's own provider kind can take). The translation report
 * names fields by it, and docs/GUIDE.md's support tables are generated from it with the
 * providers' field tables.
 */
export interface DialectField {
  readonly field: string
  readonly neutral: ReportedField | undefined
}

export interface DialectFields {
  readonly dialect: string
  /** The provider kind that takes the dialect's requests natively (as they came), if any. */
  readonly nativeKind: "anthropic" | "openai" | undefined
  readonly fields: ReadonlyArray<DialectField>
}

/** Neutral field -> the dialect's name for it, where the names differ. */
export const originsOf = (dialect: DialectFields): Readonly<Partial<Record<ReportedField, string>>> => {
  const origins: Partial<Record<ReportedField, string>> = {}
  for (const { field, neutral } of dialect.fields) if (neutral !== undefined && neutral !== field && origins[neutral] === undefined) origins[neutral] = field
  return origins
}

/** Chat completions: the neutral request is its own, apart from two aliases. */
export const chatFields: DialectFields = {
  dialect: "chat completions",
  nativeKind: undefined,
  fields: [
    { field: "max_completion_tokens", neutral: "max_completion_tokens" },
    { field: "max_tokens", neutral: "max_completion_tokens" },
    { field: "temperature", neutral: "temperature" },
    { field: "top_p", neutral: "top_p" },
    { field: "stop", neutral: "stop" },
    { field: "seed", neutral: "seed" },
    { field: "presence_penalty", neutral: "presence_penalty" },
    { field: "frequency_penalty", neutral: "frequency_penalty" },
    { field: "n", neutral: "n" },
    { field: "response_format", neutral: "response_format" },
    { field: "tools", neutral: "tools" },
    { field: "tool_choice", neutral: "tool_choice" },
    { field: "parallel_tool_calls", neutral: "parallel_tool_calls" },
    { field: "reasoning_effort", neutral: "reasoning_effort" },
    { field: "modalities", neutral: "modalities" },
    { field: "logprobs", neutral: "logprobs" },
    { field: "top_logprobs", neutral: "top_logprobs" },
    { field: "logit_bias", neutral: "logit_bias" },
    { field: "metadata", neutral: "metadata" },
    { field: "user", neutral: "user" },
    { field: "safety_identifier", neutral: "user" }
  ]
}
