import { api, enc } from "../api.js"
import { count, day, dollars, emptyState, h, render, table } from "../dom.js"
import { projectHeader } from "./project.js"

const rate = (errors, requests) => (requests === 0 ? "—" : `${((100 * errors) / requests).toFixed(errors === 0 ? 0 : 1)}%`)

const tile = (id, label, value, note) =>
  h("div", { class: "tile", id }, h("span", { class: "label" }, label), h("strong", {}, value), note ? h("span", { class: "muted" }, note) : null)

/**
 * What billing counts and why it can differ from the usage figures: spend counters run only
 * from when the project got a balance or a limit, while the usage ledger counts every request.
 */
const billingNote = (projectId, overview) => {
  const b = overview.billing
  const link = h("a", { href: `#/projects/${enc(projectId)}/billing` }, "Credit & limits")
  if (!b.billed) {
    return h("p", { id: "billing-note", class: "note" },
      "This project has no credit balance and no spend limit, so nothing is charged against a budget: the spend above is what its requests cost at the catalogue's prices. Grant credit or set a limit on ", link, ".")
  }
  const since = b.counting_since === null ? "since credit or a limit was first set" : `since ${day(b.counting_since)}`
  const differs = b.month_usd !== overview.month.cost_usd
  return h("p", { id: "billing-note", class: "note" },
    `Credit and spend limits count spend ${since}: ${dollars(b.day_usd)} today, ${dollars(b.month_usd)} this month.`,
    differs ? " Requests before that (or still being settled) are in the usage figures above but not in these." : "",
    " Details on ", link, ".")
}

export const overviewPage = async (projectId) => {
  const { header } = await projectHeader(projectId, "overview")
  const overview = await api("GET", `/admin/projects/${enc(projectId)}/overview`)
  const { today, month, billing } = overview
  const balance = billing.balance_usd === null ? "Unlimited" : dollars(billing.balance_usd)
  const remove = async () => {
    if (!confirm("Delete this project? Every key of it stops working at once. Its usage and credit history are kept.")) return
    await api("DELETE", `/admin/projects/${enc(projectId)}`)
    location.hash = "#/projects"
  }
  render(
    header,
    h("section", { class: "tiles", id: "overview" },
      tile("tile-balance", "Balance", balance, billing.balance_usd === null ? "no credit set" : billing.reserved_usd > 0 ? `${dollars(billing.reserved_usd)} held by requests in flight` : null),
      tile("tile-spend-today", "Spend today", dollars(today.cost_usd), `${count(today.requests)} requests`),
      tile("tile-spend-month", "Spend this month", dollars(month.cost_usd), `${count(month.requests)} requests`),
      tile("tile-errors", "Error rate this month", rate(month.errors, month.requests), `${count(month.errors)} of ${count(month.requests)} failed`)),
    billingNote(projectId, overview),
    h("h2", {}, "Top models this month"),
    month.requests === 0
      ? emptyState("No requests this month yet. Create a key on Users & keys and send a request to /v1/chat/completions with it; it appears here and in the request log within a few seconds.", ["Create a key", `#/projects/${enc(projectId)}/keys`])
      : table([
        ["Model", (m) => m.model ?? h("span", { class: "muted" }, "none (refused before a model was chosen)")],
        ["Requests", (m) => count(m.requests)],
        ["Errors", (m) => h("a", { href: `#/projects/${enc(projectId)}/requests?outcome=error${m.model === null ? "" : `&model=${enc(m.model)}`}` }, count(m.errors))],
        ["Tokens in / out", (m) => `${count(m.prompt_tokens)} / ${count(m.completion_tokens)}`],
        ["Cost", (m) => dollars(m.cost_usd)]
      ], overview.top_models, { id: "top-models" }),
    h("section", { class: "card danger-zone" },
      h("h2", {}, "Delete this project"),
      h("p", { class: "muted" }, "Revokes every key of the project and removes it from the list. Usage, credit history and key records are kept for audit."),
      h("button", { type: "button", class: "danger", id: "delete-project", onclick: remove }, "Delete project"))
  )
}
