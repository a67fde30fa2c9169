import { api, enc } from "../api.js"
import { stackedBars } from "../chart.js"
import { count, emptyState, h, render, table, usd } from "../dom.js"
import { projectHeader } from "./project.js"

// Counts are charted on whole-number ticks; cost in dollars.
const metrics = {
  requests: { label: "Requests", value: (r) => r.requests, format: count, integer: true },
  tokens: { label: "Tokens", value: (r) => r.prompt_tokens + r.completion_tokens, format: count, integer: true },
  cost: { label: "Cost (USD)", value: (r) => r.cost_usd, format: (v) => usd(v), integer: false }
}

const dayString = (ms) => new Date(ms).toISOString().slice(0, 10)
const modelName = (row) => row.model ?? "(no model)"

/** Every day of the window, so days without traffic show as gaps instead of vanishing. */
const daysBetween = (from, to) => {
  const days = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && days.length < 1000; t += 86_400_000) days.push(dayString(t))
  return days
}

const csvCell = (value) => {
  const text = String(value ?? "")
  // A leading = + - @ would be run as a formula by spreadsheets.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export const usageCsv = (rows) =>
  [["day", "model", "requests", "prompt_tokens", "completion_tokens", "cached_tokens", "units", "cost_usd", "cost_nano_usd"],
    ...rows.map((r) => [r.day, r.model ?? "", r.requests, r.prompt_tokens, r.completion_tokens, r.cached_tokens, r.units, r.cost_usd, r.cost_nano_usd])]
    .map((line) => line.map(csvCell).join(",")).join("\r\n") + "\r\n"

const download = (name, text) => {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }))
  const link = h("a", { href: url, download: name })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export const usagePage = async (projectId) => {
  const { header } = await projectHeader(projectId, "usage")
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "")
  const to = params.get("to") ?? dayString(Date.now())
  const from = params.get("from") ?? dayString(Date.now() - 29 * 86_400_000)
  const metric = metrics[params.get("metric") ?? "requests"] ?? metrics.requests
  const fromS = Math.floor(Date.parse(`${from}T00:00:00Z`) / 1000)
  const toS = Math.floor(Date.parse(`${to}T00:00:00Z`) / 1000) + 86_400
  const report = await api("GET", `/admin/projects/${enc(projectId)}/usage/daily?from=${fromS}&to=${toS}`)
  const rows = report.data
  const days = daysBetween(from, to)
  const models = [...new Set(rows.map(modelName))].sort()
  const series = models.map((name) => ({
    name,
    values: days.map((day) => rows.filter((r) => r.day === day && modelName(r) === name).reduce((sum, r) => sum + metric.value(r), 0))
  }))
  const byModel = models.map((name) => {
    const mine = rows.filter((r) => modelName(r) === name)
    const sum = (f) => mine.reduce((s, r) => s + f(r), 0)
    return { name, requests: sum((r) => r.requests), prompt: sum((r) => r.prompt_tokens), completion: sum((r) => r.completion_tokens), cost: sum((r) => r.cost_usd) }
  })
  const controls = h("form", { id: "usage-range", class: "card inline", onsubmit: (event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    const query = new URLSearchParams({ from: String(data.get("from")), to: String(data.get("to")), metric: String(data.get("metric")) })
    location.hash = `#/projects/${enc(projectId)}/usage?${query}`
  } },
    h("label", {}, "From", h("input", { type: "date", name: "from", value: from, required: true })),
    h("label", {}, "To", h("input", { type: "date", name: "to", value: to, required: true })),
    h("label", {}, "Show", h("select", { name: "metric" }, Object.entries(metrics).map(([key, m]) =>
      h("option", { value: key, selected: m === metric }, m.label)))),
    h("button", { type: "submit" }, "Update"),
    h("button", { type: "button", id: "export-csv", class: "secondary", onclick: () => download(`usage-${projectId}-${from}-${to}.csv`, usageCsv(rows)) }, "Export CSV"))
  render(
    header,
    controls,
    rows.length === 0
      ? emptyState("No usage in this range. Requests made with this project's keys show up here within a few seconds of finishing; create a key on Users & keys, or widen the range.", ["Create a key", `#/projects/${enc(projectId)}/keys`])
      : null,
    h("div", { class: "card", id: "usage-chart" },
      h("p", { class: "chart-total" }, `${metric.label}, ${from} to ${to}: `, h("strong", { id: "usage-total" }, metric.format(series.reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0)))),
      stackedBars({ days, series, format: metric.format, title: `${metric.label} per day and model`, integer: metric.integer })),
    h("h2", {}, "Per model"),
    table([
      ["Model", (m) => m.name],
      ["Requests", (m) => m.requests],
      ["Prompt tokens", (m) => m.prompt],
      ["Completion tokens", (m) => m.completion],
      ["Cost", (m) => usd(m.cost)]
    ], byModel, { id: "usage-models" }),
    h("h2", {}, "Per day"),
    table([
      ["Day", (r) => r.day],
      ["Model", modelName],
      ["Requests", (r) => r.requests],
      ["Prompt tokens", (r) => r.prompt_tokens],
      ["Completion tokens", (r) => r.completion_tokens],
      ["Cost", (r) => usd(r.cost_usd)]
    ], rows, { id: "usage-days" })
  )
}
