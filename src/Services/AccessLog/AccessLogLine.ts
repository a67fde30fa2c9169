/** What one access-log line says about a request; `undefined` fields are left out. */
export interface AccessRecord {
  /** Unix milliseconds when the request arrived. */
  readonly time: number
  readonly level: "INFO" | "WARN" | "ERROR" | "DEBUG"
  readonly requestId: string | undefined
  readonly method: string
  /** The path without its query string. */
  readonly route: string
  readonly status: number
  readonly model: string | undefined
  readonly provider: string | undefined
  readonly attempts: number | undefined
  readonly latencyMs: number
  /** Streams: milliseconds until the first content. */
  readonly ttftMs: number | undefined
  readonly promptTokens: number | undefined
  readonly completionTokens: number | undefined
  /** The key's id (`key_...`), never its secret. */
  readonly keyId: string | undefined
  readonly projectId: string | undefined
  /** An error answer's `error.code` (its `error.type` when it has no code). */
  readonly errorCode: string | undefined
  readonly client: string | undefined
}

const round = (ms: number) => Math.round(ms * 100) / 100

/**
 * One JSON object, keys in a fixed order; `log: "access"` tells it from the application's lines,
 * with which it shares `time`, `level`, `log`, `request_id`, `project_id` and `key_id`
 * (RequestLogger.ts).
 */
export const jsonLine = (r: AccessRecord): string => {
  const out: Record<string, unknown> = {
    time: new Date(r.time).toISOString(),
    level: r.level,
    log: "access",
    request_id: r.requestId ?? null
  }
  if (r.projectId !== undefined) out["project_id"] = r.projectId
  if (r.keyId !== undefined) out["key_id"] = r.keyId
  Object.assign(out, {
    method: r.method,
    route: r.route,
    status: r.status,
    latency_ms: round(r.latencyMs)
  })
  if (r.errorCode !== undefined) out["code"] = r.errorCode
  if (r.model !== undefined) out["model"] = r.model
  if (r.provider !== undefined) out["provider"] = r.provider
  if (r.attempts !== undefined) out["attempts"] = r.attempts
  if (r.ttftMs !== undefined) out["ttft_ms"] = round(r.ttftMs)
  if (r.promptTokens !== undefined) out["prompt_tokens"] = r.promptTokens
  if (r.completionTokens !== undefined) out["completion_tokens"] = r.completionTokens
  if (r.client !== undefined) out["client"] = r.client
  return JSON.stringify(out) + "\n"
}

// C0 and C1 controls, DEL, and the line and paragraph separators: what could end a line early or
// drive a terminal (ESC sequences). Spaces are escaped too, so every field stays one word.
const unsafe = /[\u0000-\u0020\u007f-\u009f\u2028\u2029\\]/
const unsafeAll = new RegExp(unsafe.source, "g")
const escapeChar = (c: string) => {
  if (c === "\\") return "\\\\"
  const code = c.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`
}

/** A client-supplied value as one safe word of a text line: controls and spaces as `\xNN`, a backslash doubled. */
export const textField = (value: string): string => (unsafe.test(value) ? value.replace(unsafeAll, escapeChar) : value)

/**
 * For a terminal: `21:04:05.123 POST /v1/chat/completions 200 12.3ms gpt-4.1-mini via openai ...`.
 * Every field a client can influence (method, route, model, provider, address) goes through
 * `textField`, so no request can forge a line or send escape sequences to the terminal.
 */
export const textLine = (r: AccessRecord): string => {
  const parts = [new Date(r.time).toISOString().slice(11, 23), textField(r.method), textField(r.route), String(r.status), `${round(r.latencyMs)}ms`]
  if (r.model !== undefined) parts.push(r.provider === undefined ? textField(r.model) : `${textField(r.model)} via ${textField(r.provider)}`)
  if (r.attempts !== undefined && r.attempts !== 1) parts.push(`attempts=${r.attempts}`)
  if (r.ttftMs !== undefined) parts.push(`ttft=${round(r.ttftMs)}ms`)
  if (r.promptTokens !== undefined || r.completionTokens !== undefined) parts.push(`tokens=${r.promptTokens ?? 0}/${r.completionTokens ?? 0}`)
  if (r.errorCode !== undefined) parts.push(`code=${textField(r.errorCode)}`)
  if (r.keyId !== undefined) parts.push(`key=${textField(r.keyId)}`)
  if (r.projectId !== undefined) parts.push(`project=${textField(r.projectId)}`)
  if (r.client !== undefined) parts.push(`from=${textField(r.client)}`)
  if (r.requestId !== undefined) parts.push(textField(r.requestId))
  return parts.join(" ") + "\n"
}
