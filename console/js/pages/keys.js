import { api, enc } from "../api.js"
import { date, h, onSubmit, render, table } from "../dom.js"
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
    h("strong", {}, `Key ${created.key.id} created.`),
    h("p", {}, "Copy the secret now: it is shown only this once."),
    h("div", { class: "inline" }, input, button, h("button", { type: "button", class: "secondary", onclick: onDone }, "Done")))
}

export const keysPage = async (projectId, shown) => {
  const { header, document } = await projectHeader(projectId, "keys")
  const [users, keys] = await Promise.all([
    api("GET", `/admin/projects/${enc(projectId)}/users`),
    api("GET", `/admin/projects/${enc(projectId)}/keys`)
  ])
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
      scopesOf(document).map((scope) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "scopes", value: scope }), scope))),
    h("button", { type: "submit" }, "Create key"))

  const revoke = async (key) => {
    if (!confirm(`Revoke ${key.name ?? key.id}? Requests with it will be refused at once.`)) return
    await api("POST", `/admin/keys/${enc(key.id)}/revoke`)
    await reload()
  }
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
      ["", (k) => (k.revoked_at === null ? h("button", { type: "button", class: "danger", "data-revoke": k.id, onclick: () => revoke(k) }, "Revoke") : "")]
    ], keys.data, { id: "keys" }),
    h("h2", {}, "Users"),
    userForm,
    table([
      ["Name", (u) => u.name],
      ["Email", (u) => u.email ?? "—"],
      ["Id", (u) => h("code", {}, u.id)],
      ["Created", (u) => date(u.created_at)]
    ], users.data, { id: "users" })
  )
}
