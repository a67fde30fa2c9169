import { readFileSync, writeFileSync } from "node:fs"
import { Schema } from "effect"
import { chatFields, type DialectFields } from "../../src/Dialects/DialectFields.ts"
import { type Dialect, statusIn } from "../../src/Dialects/DialectErrors.ts"
import { messagesFields } from "../../src/Dialects/Messages/MessagesFields.ts"
import { responsesFields } from "../../src/Dialects/Responses/ResponsesFields.ts"
import { streamErrorCode } from "../../src/Dialects/Responses/ResponsesSse.ts"
import { ModelConfig, type ProviderConfig } from "../../src/Domain/GatewayConfig.ts"
import {
  GatewayErrorReason,
  InvalidRequest,
  Internal,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  PaymentRequired,
  PermissionDenied,
  RateLimited,
  RequestTimeout,
  ServiceUnavailable,
  Unauthenticated,
  UnsupportedMediaType,
  UpstreamFailure
} from "../../src/Domain/GatewayError.ts"
import { profileNames } from "../../src/Providers/OpenAiCompatible/Profiles.ts"
import { providerFields } from "../../src/Providers/ProviderFields.ts"

/**
 * The documentation tables generated from the code's own data: what each dialect's fields
 * become on each provider (the dialects' field maps and the providers' field tables), and the
 * status and `error.type` of every failure in each dialect (DialectErrors.ts). A test checks
 * the docs hold exactly these; `node test/support/SupportTables.ts --write` rewrites them.
 */

const reasoningModel = Schema.decodeUnknownSync(ModelConfig)({
  id: "m",
  kind: "chat",
  deployments: [{ provider: "p", model: "up" }],
  capabilities: { reasoning: true }
})

type Column = { readonly title: string; readonly provider: Pick<ProviderConfig, "kind" | "profile"> }
const columns: ReadonlyArray<Column> = [
  { title: "OpenAI", provider: { kind: "openai" } },
  { title: "Anthropic", provider: { kind: "anthropic" } },
  { title: "Gemini", provider: { kind: "gemini" } },
  ...profileNames.filter((name) => name !== "openai").map((name) => ({ title: name, provider: { kind: "openai-compatible" as const, profile: name } }))
]

const cell = (dialect: DialectFields, field: DialectFields["fields"][number], column: Column): string => {
  if (dialect.nativeKind !== undefined && column.provider.kind === dialect.nativeKind) return "native"
  if (field.neutral === undefined) return "dropped"
  const fate = providerFields(column.provider, reasoningModel).fields[field.neutral]
  switch (fate.fate) {
    case "sent":
      return fate.as === field.field ? "yes" : `\`${fate.as}\``
    case "implicit":
      return "yes (default)"
    case "dropped":
      return "dropped"
    case "refused":
      return "400"
  }
}

const supportTable = (dialect: DialectFields): string => {
  const head = `| ${dialect.dialect} field | ${columns.map((c) => c.title).join(" | ")} |`
  const rule = `|---|${columns.map(() => "---").join("|")}|`
  const rows = dialect.fields.map((f) => `| \`${f.field}\` | ${columns.map((c) => cell(dialect, f, c)).join(" | ")} |`)
  return [head, rule, ...rows].join("\n")
}

export const supportTables = (): string =>
  [chatFields, responsesFields, messagesFields].map((dialect) => `**${dialect.dialect}**\n\n${supportTable(dialect)}`).join("\n\n")

const failures: ReadonlyArray<{ readonly what: string; readonly reason: GatewayErrorReason }> = [
  { what: "A bad field (named in the message)", reason: new InvalidRequest({ message: "" }) },
  { what: "Missing or unknown key", reason: new Unauthenticated({ message: "" }) },
  { what: "Out of credit or over a spend limit", reason: new PaymentRequired({ message: "" }) },
  { what: "Key without the scope", reason: new PermissionDenied({ message: "" }) },
  { what: "Unknown model or URL", reason: new NotFound({ message: "" }) },
  { what: "Wrong method", reason: new MethodNotAllowed({ message: "", allow: [] }) },
  { what: "Body over the limit", reason: new PayloadTooLarge({ message: "" }) },
  { what: "Wrong content type, or input the model cannot take", reason: new UnsupportedMediaType({ message: "" }) },
  { what: "The gateway's rate limit", reason: new RateLimited({ message: "" }) },
  { what: "Body stalled", reason: new RequestTimeout({ message: "" }) },
  { what: "Every provider busy, throttling or unreachable", reason: new UpstreamFailure({ message: "", provider: "p", kind: "overloaded" }) },
  { what: "No provider answered in time", reason: new UpstreamFailure({ message: "", provider: "p", kind: "timeout" }) },
  { what: "A provider failed otherwise", reason: new UpstreamFailure({ message: "", provider: "p", kind: "server" }) },
  { what: "The gateway's storage unavailable", reason: new ServiceUnavailable({ message: "", retryAfterMs: 1000 }) },
  { what: "A gateway bug (the message names the request id)", reason: new Internal({ message: "" }) }
]
const dialects: ReadonlyArray<{ readonly title: string; readonly dialect: Dialect }> = [
  { title: "Chat completions and the other OpenAI-style endpoints", dialect: "chat" },
  { title: "Responses (`/v1/responses`)", dialect: "responses" },
  { title: "Messages (`/v1/messages`)", dialect: "messages" }
]

/** Failures that can still happen once a stream has started: a Responses stream then ends with an `error` event of its `code`. */
const midStream: ReadonlySet<GatewayErrorReason["_tag"]> = new Set(["UpstreamFailure", "ServiceUnavailable", "Internal"])

export const errorTable = (): string => {
  const head = `| Failure | ${dialects.map((d) => d.title).join(" | ")} |`
  const rule = `|---|${dialects.map(() => "---").join("|")}|`
  const rows = failures.map(({ what, reason }) => {
    const cells = dialects.map(({ dialect }) => {
      const { status, type } = statusIn(dialect, reason)
      return dialect === "responses" && midStream.has(reason._tag) ? `${status} \`${type}\`; in a stream \`${streamErrorCode(reason)}\`` : `${status} \`${type}\``
    })
    return `| ${what} | ${cells.join(" | ")} |`
  })
  return [head, rule, ...rows].join("\n")
}

const open = (name: string) => `<!-- generated:${name} -->\n`
const close = (name: string) => `<!-- /generated:${name} -->`

/** Where the generated block between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` lies in a document. */
const blockAt = (text: string, name: string): { readonly from: number; readonly to: number } | undefined => {
  const start = text.indexOf(open(name))
  const end = start < 0 ? -1 : text.indexOf(close(name), start)
  return start < 0 || end < 0 ? undefined : { from: start + open(name).length, to: end }
}

/** The generated block's text (without its final newline), or undefined when the markers are missing. */
export const generatedBlock = (text: string, name: string): string | undefined => {
  const at = blockAt(text, name)
  return at === undefined ? undefined : text.slice(at.from, at.to).replace(/\n$/, "")
}

export const documents = [
  { file: "docs/GUIDE.md", name: "dialect-support", render: supportTables },
  { file: "README.md", name: "dialect-errors", render: errorTable }
] as const

if (process.argv.includes("--write")) {
  for (const { file, name, render } of documents) {
    const text = readFileSync(file, "utf8")
    const at = blockAt(text, name)
    if (at === undefined) throw new Error(`${file} has no generated:${name} block`)
    writeFileSync(file, `${text.slice(0, at.from)}${render()}\n${text.slice(at.to)}`)
  }
}
