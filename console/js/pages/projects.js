import { api, enc } from "../api.js"
import { date, emptyState, h, onSubmit, render, table } from "../dom.js"

export const projectsPage = async () => {
  const projects = (await api("GET", "/admin/projects")).data
  const form = h("form", { id: "create-project", class: "card inline", onsubmit: onSubmit(async (data) => {
    const project = await api("POST", "/admin/projects", { name: String(data.get("name")) })
    location.hash = `#/projects/${enc(project.id)}/keys`
  }) },
    h("label", {}, "Name", h("input", { name: "name", required: true, maxlength: 200 })),
    h("button", { type: "submit" }, "Create project"))
  render(
    h("h1", {}, "Projects"),
    form,
    projects.length === 0
      ? emptyState("No projects yet. A project holds API keys, users, files, usage and credit: create one above, then create a key in it.")
      : table([
        ["Name", (p) => h("a", { href: `#/projects/${enc(p.id)}/overview` }, p.name)],
        ["Id", (p) => h("code", {}, p.id)],
        ["Created", (p) => date(p.created_at)]
      ], projects, { id: "projects" })
  )
}
