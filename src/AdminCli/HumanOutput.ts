import type { ApiKeyView, ProjectView, UserView } from "../Domain/ApiKey.ts"
import { formatNanoUsd } from "../Domain/NanoUsd.ts"
import type { UsageReport, UsageTotals } from "../Domain/UsageEvent.ts"

/** Text for people; `--json` prints the admin API's bodies instead. */

export const time = (seconds: number | null): string =>
  seconds === null ? "never" : new Date(seconds * 1000).toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "Z")

/** Left-aligned columns separated by two spaces; the header row is upper case. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all = [header.map((h) => h.toUpperCase()), ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)))
  return all.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n")
}

const orDash = (value: string | null): string => (value === null || value === "" ? "-" : value)

export const projectCreated = (p: ProjectView): string => `Created project ${p.id} (${p.name}).`

export const projectTable = (projects: ReadonlyArray<ProjectView>): string =>
  projects.length === 0
    ? "No projects yet. Create one with: projects create --name <name>"
    : table(["id", "name", "created"], projects.map((p) => [p.id, p.name, time(p.created_at)]))

export const userCreated = (u: UserView): string =>
  `Created user ${u.id} (${u.name}${u.email === null ? "" : ` <${u.email}>`}) in project ${u.project_id}.`

export const userTable = (users: ReadonlyArray<UserView>): string =>
  users.length === 0
    ? "This project has no users."
    : table(["id", "name", "email", "created"], users.map((u) => [u.id, u.name, orDash(u.email), time(u.created_at)]))

export const keyStatus = (k: ApiKeyView, nowSeconds: number): string =>
  k.revoked_at !== null
    ? `revoked ${time(k.revoked_at)}`
    : k.expires_at !== null && k.expires_at <= nowSeconds
      ? "expired"
      : "active"

export const keyCreated = (k: ApiKeyView, secret: string): string =>
  [
    `Created API key ${k.id} in project ${k.project_id}.`,
    `  name:     ${orDash(k.name)}`,
    `  user:     ${orDash(k.user_id)}`,
    `  scopes:   ${k.scopes.join(", ")}`,
    `  expires:  ${time(k.expires_at)}`,
    "",
    "Secret (use as 'Authorization: Bearer <secret>'):",
    "",
    `    ${secret}`,
    "",
    "This secret is shown only once and cannot be retrieved later. Store it somewhere safe now."
  ].join("\n")

export const keyTable = (keys: ReadonlyArray<ApiKeyView>, nowSeconds: number): string =>
  keys.length === 0
    ? "This project has no API keys."
    : table(
        ["id", "name", "hint", "scopes", "user", "status", "created", "expires"],
        keys.map((k) => [
          k.id,
          orDash(k.name),
          `...${k.hint}`,
          k.scopes.join(","),
          orDash(k.user_id),
          keyStatus(k, nowSeconds),
          time(k.created_at),
          time(k.expires_at)
        ])
      )

export const keyScopes = (k: ApiKeyView): string => `API key ${k.id} (...${k.hint}) now has the scopes ${k.scopes.join(", ")}.`

export const keyRotated = (k: ApiKeyView, secret: string): string =>
  [`API key ${k.id} of project ${k.project_id} has a new secret; the old one no longer works.`, `  secret:   ${secret}`, "The secret is shown only this once."].join("\n")

export const deleted = (d: { readonly id: string; readonly object: string; readonly revoked_keys: number }): string =>
  `Deleted ${d.object} ${d.id}; ${d.revoked_keys} key${d.revoked_keys === 1 ? "" : "s"} revoked.`

export const keyRevoked = (k: ApiKeyView): string =>
  `Revoked API key ${k.id} (...${k.hint}) of project ${k.project_id} at ${time(k.revoked_at)}.`

/** Micro-dollar precision, formatted from the exact integer (never from a float sum). */
const usd = (t: UsageTotals): string => `$${formatNanoUsd(BigInt(t.cost_nano_usd), 6)}`

const totalsRow = (t: UsageTotals): Array<string> => [
  String(t.requests),
  String(t.prompt_tokens),
  String(t.completion_tokens),
  String(t.cached_tokens),
  String(t.cache_write_tokens),
  String(t.units),
  usd(t)
]

export const usageReport = (r: UsageReport): string => {
  const header = ["model", "requests", "prompt", "completion", "cached", "cache_write", "units", "cost_usd"]
  const rows = r.by_model.map((m) => [m.model ?? "(none)", ...totalsRow(m)])
  return [
    `Usage of project ${r.project_id} from ${time(r.from)} to ${time(r.to)}:`,
    "",
    table(header, [...rows, ["TOTAL", ...totalsRow(r.totals)]])
  ].join("\n")
}
