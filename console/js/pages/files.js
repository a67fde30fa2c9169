import { api, enc } from "../api.js"
import { date, h, render, table } from "../dom.js"
import { projectHeader } from "./project.js"

const size = (bytes) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`)

export const filesPage = async (projectId) => {
  const { header } = await projectHeader(projectId, "files")
  const files = await api("GET", `/admin/projects/${enc(projectId)}/files?limit=1000`)
  const remove = async (file) => {
    if (!confirm(`Delete ${file.filename}? Its bytes are deleted too.`)) return
    await api("DELETE", `/admin/projects/${enc(projectId)}/files/${enc(file.id)}`)
    await filesPage(projectId)
  }
  render(
    header,
    h("h2", {}, "Files"),
    files.has_more ? h("p", { class: "muted" }, "Showing the newest 1000 files.") : null,
    table([
      ["Name", (f) => f.filename],
      ["Id", (f) => h("code", {}, f.id)],
      ["Purpose", (f) => f.purpose],
      ["Size", (f) => size(f.bytes)],
      ["Status", (f) => f.status],
      ["Uploaded", (f) => date(f.created_at)],
      ["Expires", (f) => date(f.expires_at)],
      ["", (f) => h("button", { type: "button", class: "danger", "data-delete": f.id, onclick: () => remove(f) }, "Delete")]
    ], files.data, { id: "files" }, "No files. Keys with the 'files' scope upload them with POST /v1/files; chat requests can then refer to them.")
  )
}
