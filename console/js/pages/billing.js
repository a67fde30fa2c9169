import { api } from "../api.js"
import { billingEndpoints, extraParameters, fillPath, formFields } from "../discovery.js"
import { errorBanner, h, onSubmit, render } from "../dom.js"
import { projectHeader } from "./project.js"

/** Any JSON value as nested definition lists and tables, never as markup. */
const show = (value) => {
  if (Array.isArray(value)) {
    if (value.length === 0) return h("span", { class: "muted" }, "none")
    return h("ol", {}, value.map((item) => h("li", {}, show(item))))
  }
  if (value !== null && typeof value === "object") {
    return h("dl", {}, Object.entries(value).map(([key, item]) => [h("dt", {}, key), h("dd", {}, show(item))]))
  }
  // null is "not set" (no balance: unlimited; no limit), not a value to print.
  if (value === null) return h("span", { class: "muted" }, "not set")
  return h("code", {}, String(value))
}

const input = (field) => {
  if (field.enum) return h("select", { name: field.name, required: field.required }, field.required ? null : h("option", { value: "" }, "—"), field.enum.map((v) => h("option", { value: v }, v)))
  if (field.type === "boolean") return h("input", { type: "checkbox", name: field.name })
  return h("input", { name: field.name, required: field.required, type: field.type === "string" ? "text" : "number", step: field.type === "integer" ? "1" : "any" })
}

const bodyOf = (fields, data) => {
  if (fields === undefined) {
    const raw = String(data.get("__json") ?? "").trim()
    return raw === "" ? undefined : JSON.parse(raw)
  }
  const body = {}
  for (const field of fields) {
    if (field.type === "boolean") body[field.name] = data.get(field.name) !== null
    else {
      const value = String(data.get(field.name) ?? "")
      if (value === "") continue
      body[field.name] = field.type === "string" ? value : Number(value)
    }
  }
  return body
}

const operationForm = (document, projectId, endpoint, change, reload) => {
  const fields = change.method === "DELETE" ? [] : formFields(document, change.schema)
  const extras = extraParameters(endpoint.path)
  return h("form", { class: "card", "data-operation": `${change.method} ${endpoint.path}`, onsubmit: onSubmit(async (data) => {
    const values = { project_id: projectId }
    for (const name of extras) values[name] = String(data.get(`path:${name}`) ?? "")
    const body = change.method === "DELETE" ? undefined : bodyOf(fields, data)
    await api(change.method, fillPath(endpoint.path, values), body)
    await reload()
  }) },
    h("h3", {}, change.summary),
    change.description ? h("p", { class: "muted" }, change.description) : null,
    h("div", { class: "inline" },
      extras.map((name) => h("label", {}, name, h("input", { name: `path:${name}`, required: true }))),
      (fields ?? []).map((field) => h("label", { title: field.description ?? "" }, field.name, input(field))),
      fields === undefined ? h("label", {}, "JSON body", h("textarea", { name: "__json", rows: 4, cols: 50 })) : null),
    h("button", { type: "submit", class: change.method === "DELETE" ? "danger" : "" }, `${change.method === "DELETE" ? "Delete" : "Send"} (${change.method})`))
}

/**
 * Credit, balances and limits: whatever such endpoints the admin API documents. Their reads
 * are shown as they come, their changes as forms built from the request schemas.
 */
export const billingPage = async (projectId) => {
  const { header, document } = await projectHeader(projectId, "billing")
  const endpoints = billingEndpoints(document)
  const reload = () => billingPage(projectId)
  const sections = await Promise.all(endpoints.map(async (endpoint) => {
    let current = null
    if (endpoint.get !== undefined && extraParameters(endpoint.path).length === 0) {
      current = await api("GET", fillPath(endpoint.path, { project_id: projectId })).then(show, errorBanner)
    }
    return h("section", { class: "card", "data-path": endpoint.path },
      h("h2", {}, endpoint.get?.summary ?? endpoint.path),
      h("p", {}, h("code", { class: "muted" }, endpoint.path)),
      current,
      endpoint.changes.map((change) => operationForm(document, projectId, endpoint, change, reload)))
  }))
  render(header, sections.length === 0 ? h("p", { class: "muted" }, "This gateway's admin API has no credit or limit endpoints.") : sections)
}
