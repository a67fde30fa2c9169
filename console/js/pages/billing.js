import { api, enc } from "../api.js"
import { act, count, date, dollars, emptyState, h, onSubmit, render, table } from "../dom.js"
import { projectHeader } from "./project.js"

const periods = [["day", "Per day (UTC)"], ["month", "Per month (UTC)"], ["total", "In total"]]
const periodLabel = (period) => periods.find(([value]) => value === period)?.[1] ?? period
const kinds = { grant: "Credit granted", refund: "Refund", settlement: "Usage" }
const perMinute = (value) => (value === null ? "no limit" : `${count(value)} a minute`)

// The granter's name is remembered in this browser only, to fill the next grant.
const grantedByKey = "gateway-console-granted-by"

/** Who a limit applies to: the project, one of its keys, or one model in the project. */
const scopeOptions = (keys, models, withModels) => [
  h("option", { value: "project" }, "The whole project"),
  keys.filter((k) => k.revoked_at === null).map((k) => h("option", { value: `key:${k.id}` }, `Key: ${k.name ?? `…${k.hint}`}`)),
  withModels ? models.map((m) => h("option", { value: `model:${m.id}` }, `Model: ${m.id}`)) : []
]
const scopeBody = (value) => (value.startsWith("key:") ? { key_id: value.slice(4) } : value.startsWith("model:") ? { model: value.slice(6) } : {})

const optionalNumber = (data, name) => {
  const raw = String(data.get(name) ?? "").trim()
  return raw === "" ? undefined : Number(raw)
}

/** The project's credit, spend limits and rate limits, in dollars, dates and names. */
export const billingPage = async (projectId) => {
  const { header } = await projectHeader(projectId, "billing")
  const base = `/admin/projects/${enc(projectId)}`
  // One after another: on the embedded storage every connection shares one database session,
  // and these reads run in billing transactions there.
  const status = await api("GET", `${base}/billing`)
  const ledger = await api("GET", `${base}/credits?limit=50`)
  const overview = await api("GET", `${base}/overview`)
  const [keys, models] = await Promise.all([api("GET", `${base}/keys`), api("GET", "/admin/models")])
  const reload = () => billingPage(projectId)
  const keyName = (id) => {
    const key = keys.data.find((k) => k.id === id)
    return key === undefined ? id : `key ${key.name ?? `…${key.hint}`}`
  }
  const appliesTo = (l) => (l.key_id !== null ? keyName(l.key_id) : l.model ? `model ${l.model}` : "the whole project")
  const since = overview.billing.counting_since

  const grantForm = h("form", { id: "grant-credit", class: "card", onsubmit: onSubmit(async (data) => {
    const grantedBy = String(data.get("granted_by") ?? "").trim()
    const note = String(data.get("note") ?? "").trim()
    if (grantedBy !== "") localStorage.setItem(grantedByKey, grantedBy)
    await api("POST", `${base}/credits`, {
      amount_usd: Number(data.get("amount_usd")),
      kind: String(data.get("kind")),
      ...(grantedBy === "" ? {} : { granted_by: grantedBy }),
      ...(note === "" ? {} : { note })
    })
    await reload()
  }) },
    h("h3", {}, "Add credit"),
    h("div", { class: "inline" },
      h("label", {}, "Amount (US dollars)", h("input", { name: "amount_usd", type: "number", min: "0.01", step: "0.01", required: true, placeholder: "50.00" })),
      h("label", {}, "Kind", h("select", { name: "kind" }, h("option", { value: "grant" }, "Grant"), h("option", { value: "refund" }, "Refund"))),
      h("label", {}, "Granted by", h("input", { name: "granted_by", maxlength: 200, placeholder: "your name or email", value: localStorage.getItem(grantedByKey) ?? "" })),
      h("label", {}, "Note", h("input", { name: "note", maxlength: 500, placeholder: "e.g. November budget" })),
      h("button", { type: "submit" }, "Add credit")))

  const spendForm = h("form", { id: "set-spend-limit", class: "card", onsubmit: onSubmit(async (data) => {
    await api("POST", `${base}/spend-limits`, { period: String(data.get("period")), limit_usd: Number(data.get("limit_usd")), ...scopeBody(String(data.get("scope"))) })
    await reload()
  }) },
    h("h3", {}, "Set a spend limit"),
    h("div", { class: "inline" },
      h("label", {}, "Applies to", h("select", { name: "scope" }, scopeOptions(keys.data, [], false))),
      h("label", {}, "Period", h("select", { name: "period" }, periods.map(([value, label]) => h("option", { value }, label)))),
      h("label", {}, "Limit (US dollars)", h("input", { name: "limit_usd", type: "number", min: "0", step: "0.01", required: true })),
      h("button", { type: "submit" }, "Set limit")))

  const rateForm = h("form", { id: "set-rate-limit", class: "card", onsubmit: onSubmit(async (data) => {
    const rpm = optionalNumber(data, "rpm")
    const tpm = optionalNumber(data, "tpm")
    if (rpm === undefined && tpm === undefined) throw new Error("Give requests per minute, tokens per minute, or both.")
    await api("POST", `${base}/rate-limits`, { ...(rpm === undefined ? {} : { rpm }), ...(tpm === undefined ? {} : { tpm }), ...scopeBody(String(data.get("scope"))) })
    await reload()
  }) },
    h("h3", {}, "Set a rate limit"),
    h("p", { class: "muted" }, "Either number alone is fine; a field left empty keeps its current value."),
    h("div", { class: "inline" },
      h("label", {}, "Applies to", h("select", { name: "scope" }, scopeOptions(keys.data, models.data, true))),
      h("label", {}, "Requests per minute", h("input", { name: "rpm", type: "number", min: "1", step: "1" })),
      h("label", {}, "Tokens per minute", h("input", { name: "tpm", type: "number", min: "1", step: "1" })),
      h("button", { type: "submit" }, "Set limit")))

  const removeSpend = (l) => act(async () => {
    await api("POST", `${base}/spend-limits`, { period: l.period, limit_usd: null, ...(l.key_id === null ? {} : { key_id: l.key_id }) })
    await reload()
  })
  const removeRate = (l) => act(async () => {
    await api("POST", `${base}/rate-limits`, { rpm: null, tpm: null, ...(l.key_id === null ? {} : { key_id: l.key_id }), ...(l.model === null ? {} : { model: l.model }) })
    await reload()
  })

  render(
    header,
    h("section", { class: "tiles", id: "credit-status" },
      h("div", { class: "tile", id: "balance" }, h("span", { class: "label" }, "Balance"),
        h("strong", {}, status.balance_usd === null ? "Unlimited" : dollars(status.balance_usd)),
        h("span", { class: "muted" }, status.balance_usd === null ? "no credit granted: requests are not limited by a balance" : `${dollars(status.reserved_usd)} held by requests in flight`)),
      h("div", { class: "tile", id: "billed-today" }, h("span", { class: "label" }, "Charged today"), h("strong", {}, dollars(status.spend.day_usd))),
      h("div", { class: "tile", id: "billed-month" }, h("span", { class: "label" }, "Charged this month"), h("strong", {}, dollars(status.spend.month_usd)))),
    h("p", { class: "note", id: "counting-note" }, overview.billing.billed
      ? `Charges count from ${since === null ? "when credit or a limit was first set" : date(since)}; the Overview's spend counts every request at catalogue prices.`
      : "This project is not billed yet: nothing is charged until you add credit or set a spend limit. The Overview and Usage show what its requests cost meanwhile."),
    grantForm,
    h("h2", {}, "Credit history"),
    table([
      ["Date", (e) => date(e.created_at)],
      ["What", (e) => kinds[e.kind] ?? e.kind],
      ["Amount", (e) => h("span", { class: e.amount_usd < 0 ? "amount minus" : "amount plus" }, e.amount_usd > 0 ? `+${dollars(e.amount_usd)}` : dollars(e.amount_usd))],
      ["Granted by", (e) => e.granted_by ?? (e.kind === "settlement" ? (e.key_id ? keyName(e.key_id) : "—") : "—")],
      // A settlement without a request id settles a batch of a key's requests (their costs are in Usage).
      ["Note", (e) => (e.request_id ? h("a", { href: `#/projects/${enc(projectId)}/requests/${enc(e.request_id)}` }, e.note ?? "request") : e.requests > 1 ? `${e.requests} requests` : e.note ?? "")]
    ], ledger.data, { id: "credit-history" }, "No credit yet. Add credit above to give this project a prepaid balance; without one it is unlimited."),
    h("h2", {}, "Spend limits"),
    table([
      ["Applies to", appliesTo],
      ["Period", (l) => periodLabel(l.period)],
      ["Limit", (l) => dollars(l.limit_usd)],
      ["Spent", (l) => dollars(l.spent_usd)],
      ["", (l) => h("button", { type: "button", class: "secondary", "data-remove-spend": `${l.key_id ?? "project"}:${l.period}`, onclick: removeSpend(l) }, "Remove")]
    ], status.spend_limits, { id: "spend-limits" }, "No spend limits. Set one below to cap what the project or a key may spend per day, per month or in total."),
    spendForm,
    h("h2", {}, "Rate limits"),
    table([
      ["Applies to", appliesTo],
      ["Requests", (l) => perMinute(l.rpm)],
      ["Tokens", (l) => perMinute(l.tpm)],
      ["", (l) => h("button", { type: "button", class: "secondary", "data-remove-rate": `${l.key_id ?? l.model ?? "project"}`, onclick: removeRate(l) }, "Remove")]
    ], status.rate_limits, { id: "rate-limits" }, "No rate limits of this project's own (the gateway's defaults apply, if configured). Set one below."),
    rateForm,
    models.data.length === 0 ? emptyState("No models are configured, so nothing can be charged yet: add models to gateway.yaml.") : null
  )
}
