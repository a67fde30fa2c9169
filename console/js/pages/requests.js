import { api, enc } from "../api.js"
import { count, dollars, emptyState, h, render, table } from "../dom.js"
import { projectHeader } from "./project.js"

const time = (seconds) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC"
const ms = (value) => (value === null ? "—" : value < 1000 ? `${count(value)} ms` : `${(value / 1000).toFixed(2)} s`)
const outcomes = [["", "All"], ["ok", "Succeeded"], ["error", "Failed"]]
const filterNames = ["key_id", "model", "outcome", "code"]

const status = (r) => h("span", { class: r.status >= 400 ? "status bad" : "status ok" }, String(r.status), r.cancelled ? " (cancelled)" : "")

/** The request log: newest first, filtered by the query of the page's hash, each row opening its record. */
export const requestsPage = async (projectId) => {
  const { header } = await projectHeader(projectId, "requests")
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "")
  const query = new URLSearchParams({ limit: "50" })
  for (const name of [...filterNames, "before"]) if (params.get(name)) query.set(name, params.get(name))
  const [log, keys] = await Promise.all([
    api("GET", `/admin/projects/${enc(projectId)}/requests?${query}`),
    api("GET", `/admin/projects/${enc(projectId)}/keys`)
  ])
  const base = `#/projects/${enc(projectId)}/requests`
  const filters = h("form", { id: "request-filters", class: "card inline", onsubmit: (event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    const next = new URLSearchParams()
    for (const name of filterNames) if (String(data.get(name) ?? "") !== "") next.set(name, String(data.get(name)))
    location.hash = `${base}?${next}`
  } },
    h("label", {}, "Key", h("select", { name: "key_id" }, h("option", { value: "" }, "Any key"),
      keys.data.map((k) => h("option", { value: k.id, selected: params.get("key_id") === k.id }, k.name ?? `…${k.hint}`)))),
    h("label", {}, "Model", h("input", { name: "model", value: params.get("model") ?? "", placeholder: "any model" })),
    h("label", {}, "Outcome", h("select", { name: "outcome" }, outcomes.map(([value, label]) => h("option", { value, selected: (params.get("outcome") ?? "") === value }, label)))),
    h("label", {}, "Error code", h("input", { name: "code", value: params.get("code") ?? "", placeholder: "e.g. rate_limit_exceeded" })),
    h("button", { type: "submit" }, "Filter"),
    h("a", { href: base, class: "button secondary" }, "Clear"))
  const filtered = filterNames.some((name) => params.get(name))
  const open = (r) => `${base}/${enc(r.request_id)}`
  render(
    header,
    filters,
    log.data.length === 0
      ? emptyState(filtered || params.get("before")
        ? "No requests match these filters. Clear them to see every request."
        : "No requests yet. Every request made with this project's keys is listed here a few seconds after it ends: create a key on Users & keys and send one.",
        filtered ? ["Clear the filters", base] : ["Create a key", `#/projects/${enc(projectId)}/keys`])
      : table([
        ["Time", (r) => h("a", { href: open(r), class: "open-request" }, time(r.created_at))],
        ["Key", (r) => r.key_name ?? (r.key_id === null ? "—" : h("code", {}, r.key_id))],
        ["Model", (r) => r.model ?? h("span", { class: "muted" }, r.requested_model ? `${r.requested_model} (not served)` : "—")],
        ["Status", status],
        ["Latency", (r) => ms(r.latency_ms)],
        ["Tokens in / out", (r) => `${count(r.prompt_tokens)} / ${count(r.completion_tokens)}`],
        ["Cost", (r) => dollars(r.cost_usd)],
        ["Error", (r) => (r.error_code ?? r.error_type ?? "")]
      ], log.data, { id: "requests" }, "", (r) => ({ "data-request": r.request_id })),
    log.has_more
      ? h("p", {}, h("a", { id: "older", href: `${base}?${new URLSearchParams([...filterNames.filter((n) => params.get(n)).map((n) => [n, params.get(n)]), ["before", log.data.at(-1).cursor]])}` }, "Older requests →"))
      : null
  )
}

const field = (label, value) => [h("dt", {}, label), h("dd", {}, value)]

/** One request's usage record, as the ledger keeps it, with its trace id. */
export const requestPage = async (projectId, requestId) => {
  const { header } = await projectHeader(projectId, "requests")
  const r = await api("GET", `/admin/projects/${enc(projectId)}/requests/${enc(requestId)}`)
  const attempts = Array.isArray(r.detail?.attempts) ? r.detail.attempts : []
  render(
    header,
    h("p", {}, h("a", { href: `#/projects/${enc(projectId)}/requests` }, "← All requests")),
    h("h2", {}, `Request ${r.request_id}`),
    h("dl", { class: "card record", id: "request-record" },
      field("Request id", h("code", {}, r.request_id)),
      field("Trace id", r.trace_id === null
        ? h("span", { class: "muted" }, "not recorded: traces are kept only when the gateway exports them (OTEL_EXPORTER_OTLP_ENDPOINT)")
        : h("code", { id: "trace-id" }, r.trace_id)),
      field("Time", time(r.created_at)),
      field("Key", r.key_name === null ? (r.key_id ?? "—") : `${r.key_name} (${r.key_id})`),
      field("Endpoint", r.endpoint),
      field("Model asked for", r.requested_model ?? "—"),
      field("Served by", r.model === null ? "no model (refused before routing, or every route failed)" : `${r.model} via ${r.provider ?? "?"}`),
      field("Status", status(r)),
      field("Streamed", r.streamed ? "yes" : "no"),
      field("Latency", ms(r.latency_ms)),
      field("Time to first token", ms(r.ttft_ms)),
      field("Attempts", count(r.attempts)),
      field("Tokens", `${count(r.prompt_tokens)} in (${count(r.cached_tokens)} cached) / ${count(r.completion_tokens)} out${r.detail?.usage_estimated ? " (estimated: the provider reported none)" : ""}`),
      r.units > 0 ? field("Other units", count(r.units)) : null,
      field("Cost", `${dollars(r.cost_usd)} (${r.cost_nano_usd} nano-dollars)`),
      field("Error", r.error_type === null ? "none" : `${r.error_type}${r.error_code ? ` / ${r.error_code}` : ""}`),
      r.detail?.translation ? field("Translation", r.detail.translation) : null),
    attempts.length > 1
      ? [h("h3", {}, "Attempts"), table([
        ["Provider", (a) => a.provider],
        ["Model", (a) => a.model],
        ["Outcome", (a) => a.outcome],
        ["Status", (a) => a.status ?? "—"],
        ["Time", (a) => ms(a.ms)]
      ], attempts, { id: "attempts" })]
      : null
  )
}
