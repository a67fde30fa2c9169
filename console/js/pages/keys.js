import { api, enc } from "../api.js"
import { act, count, date, dollars, h, onSubmit, render, table } from "../dom.js"
import { projectHeader } from "./project.js"

const scopesOf = (document) =>
  document.components?.schemas?.CreateKeyBody?.properties?.scopes?.items?.enum ??
  ["chat", "embeddings", "audio", "images", "files", "tools", "decisions", "models"]

const copy = async (input, button) => {
  try {
    await navigator.clipboard.writeText(input.value)
  } catch {
    // Without the clipboard API (plain HTTP on another host) the selection still lets the user copy.
    input.select()
    document.execCommand?.("copy")
  }
  button.textContent = "Copied"
}

/** The new key's secret, shown this once: the gateway keeps only its hash. */
const secretPanel = (created, onDone) => {
  const input = h("input", { id: "new-secret", readonly: true, value: created.secret, size: 60 })
  const button = h("button", { type: "button", id: "copy-secret", onclick: () => copy(input, button) }, "Copy")
  return h("div", { class: "card secret", id: "secret-panel", role: "status" },
    h("strong", {}, created.rotated ? `Key ${created.key.id} has a new secret; the old one no longer works.` : `Key ${created.key.id} created.`),
    h("p", {}, "Copy the secret now: it is shown only this once."),
    h("div", { class: "inline" }, input, button, h("button", { type: "button", class: "secondary", onclick: onDone }, "Done")))
}

/** Ticks a key's scopes; saving replaces them (every instance applies them within a second). */
const scopesForm = (key, scopes, reload) =>
  h("form", { id: "edit-scopes", class: "card", onsubmit: onSubmit(async (data) => {
    await api("POST", `/admin/keys/${enc(key.id)}/scopes`, { scopes: data.getAll("scopes").map(String) })
    await reload()
  }) },
    h("h3", {}, `Scopes of ${key.name ?? key.id}`),
    h("fieldset", {}, h("legend", {}, "Tick at least one"),
      scopes.map((scope) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "scopes", value: scope, checked: key.scopes.includes(scope) }), scope))),
    h("div", { class: "inline" }, h("button", { type: "submit" }, "Save scopes"), h("button", { type: "button", class: "secondary", onclick: () => reload() }, "Cancel")))

export const keysPage = async (projectId, shown) => {
  const { header, document: openApi } = await projectHeader(projectId, "keys")
  const [users, keys, usage] = await Promise.all([
    api("GET", `/admin/projects/${enc(projectId)}/users`),
    api("GET", `/admin/projects/${enc(projectId)}/keys`),
    api("GET", `/admin/projects/${enc(projectId)}/usage/keys`)
  ])
  const usageOf = (key) => usage.data.find((u) => u.key_id === key.id)
  const reload = (created) => keysPage(projectId, created)
  const userForm = h("form", { id: "create-user", class: "card inline", onsubmit: onSubmit(async (data) => {
    const email = String(data.get("email") ?? "")
    await api("POST", `/admin/projects/${enc(projectId)}/users`, { name: String(data.get("name")), ...(email === "" ? {} : { email }) })
    await reload()
  }) },
    h("label", {}, "Name", h("input", { name: "name", required: true, maxlength: 200 })),
    h("label", {}, "Email", h("input", { name: "email", type: "email", maxlength: 320 })),
    h("button", { type: "submit" }, "Add user"))

  const keyForm = h("form", { id: "create-key", class: "card", onsubmit: onSubmit(async (data) => {
    const scopes = data.getAll("scopes").map(String)
    const expires = String(data.get("expires_at") ?? "")
    const user = String(data.get("user_id") ?? "")
    const name = String(data.get("name") ?? "")
    const body = {
      ...(name === "" ? {} : { name }),
      ...(user === "" ? {} : { user_id: user }),
      ...(scopes.length === 0 ? {} : { scopes }),
      ...(expires === "" ? {} : { expires_at: Math.floor(Date.parse(`${expires}Z`) / 1000) })
    }
    await reload(await api("POST", `/admin/projects/${enc(projectId)}/keys`, body))
  }) },
    h("div", { class: "inline" },
      h("label", {}, "Name", h("input", { name: "name", maxlength: 200 })),
      h("label", {}, "User", h("select", { name: "user_id" }, h("option", { value: "" }, "— none —"),
        users.data.map((u) => h("option", { value: u.id }, u.name)))),
      h("label", {}, "Expires (UTC)", h("input", { name: "expires_at", type: "datetime-local" }))),
    h("fieldset", {}, h("legend", {}, "Scopes (none ticked: every scope)"),
      scopesOf(openApi).map((scope) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "scopes", value: scope }), scope))),
    h("button", { type: "submit" }, "Create key"))

  const revoke = async (key) => {
    if (!confirm(`Revoke ${key.name ?? key.id}? Requests with it will be refused at once.`)) return
    await api("POST", `/admin/keys/${enc(key.id)}/revoke`)
    await reload()
  }
  const rotate = async (key) => {
    if (!confirm(`Give ${key.name ?? key.id} a new secret? The current secret stops working at once.`)) return
    await reload({ ...(await api("POST", `/admin/keys/${enc(key.id)}/rotate`)), rotated: true })
  }
  const editScopes = (key) => {
    document.getElementById("edit-scopes")?.remove()
    document.getElementById("keys").before(scopesForm(key, scopesOf(openApi), reload))
  }
  const removeUser = async (user) => {
    if (!confirm(`Delete ${user.name}? Their keys are revoked at once.`)) return
    await api("DELETE", `/admin/users/${enc(user.id)}`)
    await reload()
  }
  const live = (k) => k.revoked_at === null
  render(
    header,
    shown ? secretPanel(shown, () => reload()) : null,
    h("h2", {}, "API keys"),
    keyForm,
    table([
      ["Name", (k) => k.name ?? "—"],
      ["Id", (k) => h("code", {}, k.id)],
      ["Ends in", (k) => h("code", {}, `…${k.hint}`)],
      ["Scopes", (k) => k.scopes.join(", ")],
      ["User", (k) => users.data.find((u) => u.id === k.user_id)?.name ?? "—"],
      ["Expires", (k) => date(k.expires_at)],
      ["Status", (k) => (k.revoked_at !== null ? `revoked ${date(k.revoked_at)}` : k.expires_at !== null && k.expires_at * 1000 < Date.now() ? "expired" : "active")],
      ["Requests (30 days)", (k) => h("a", { href: `#/projects/${enc(projectId)}/requests?key_id=${enc(k.id)}` }, count(usageOf(k)?.requests ?? 0))],
      ["Cost (30 days)", (k) => dollars(usageOf(k)?.cost_usd ?? 0)],
      ["Last used", (k) => date(usageOf(k)?.last_used_at ?? null)],
      ["", (k) => (live(k)
        ? h("div", { class: "actions" },
          h("button", { type: "button", class: "secondary", "data-edit-scopes": k.id, onclick: () => editScopes(k) }, "Edit scopes"),
          h("button", { type: "button", class: "secondary", "data-rotate": k.id, onclick: act(() => rotate(k)) }, "Rotate"),
          h("button", { type: "button", class: "danger", "data-revoke": k.id, onclick: act(() => revoke(k)) }, "Revoke"))
        : "")]
    ], keys.data, { id: "keys" }, "No keys yet. Create one above: clients send it as 'Authorization: Bearer <secret>' to the /v1 endpoints."),
    h("h2", {}, "Users"),
    userForm,
    table([
      ["Name", (u) => u.name],
      ["Email", (u) => u.email ?? "—"],
      ["Id", (u) => h("code", {}, u.id)],
      ["Created", (u) => date(u.created_at)],
      ["", (u) => h("button", { type: "button", class: "danger", "data-delete-user": u.id, onclick: act(() => removeUser(u)) }, "Delete")]
    ], users.data, { id: "users" }, "No users. Users are optional: add one to record whose key is whose.")
  )
}
