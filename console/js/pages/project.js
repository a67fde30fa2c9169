import { api, enc, openApiDocument } from "../api.js"
import { billingEndpoints } from "../discovery.js"
import { h } from "../dom.js"

/** The project's name and its tabs; the credit and limits tab only where the admin API has those endpoints. */
export const projectHeader = async (projectId, active) => {
  const [project, document] = await Promise.all([api("GET", `/admin/projects/${enc(projectId)}`), openApiDocument()])
  const tabs = [["overview", "Overview"], ["keys", "Users & keys"], ["usage", "Usage"], ["requests", "Requests"], ["files", "Files"]]
  if (billingEndpoints(document).length > 0) tabs.push(["billing", "Credit & limits"])
  return {
    project,
    document,
    header: [
      h("p", { class: "crumbs" }, h("a", { href: "#/projects" }, "Projects"), " / ", project.name),
      h("h1", {}, project.name, " ", h("code", { class: "muted" }, project.id)),
      h("nav", { class: "tabs" }, tabs.map(([tab, label]) =>
        h("a", { href: `#/projects/${enc(projectId)}/${tab}`, class: tab === active ? "active" : "" }, label)))
    ]
  }
}
