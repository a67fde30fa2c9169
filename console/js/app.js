import { ApiError, session } from "./api.js"
import { errorBanner, h, render } from "./dom.js"
import { billingPage } from "./pages/billing.js"
import { filesPage } from "./pages/files.js"
import { keysPage } from "./pages/keys.js"
import { modelsPage } from "./pages/models.js"
import { overviewPage } from "./pages/overview.js"
import { projectsPage } from "./pages/projects.js"
import { requestPage, requestsPage } from "./pages/requests.js"
import { usagePage } from "./pages/usage.js"

// Hash routes: the page is one document, so a reload keeps the place without any server routing.
const routes = [
  [/^#\/projects\/([^/]+)(?:\/overview)?$/, overviewPage],
  [/^#\/projects\/([^/]+)\/requests$/, requestsPage],
  [/^#\/projects\/([^/]+)\/requests\/([^/]+)$/, requestPage],
  [/^#\/projects\/([^/]+)\/keys$/, keysPage],
  [/^#\/projects\/([^/]+)\/usage$/, usagePage],
  [/^#\/projects\/([^/]+)\/files$/, filesPage],
  [/^#\/projects\/([^/]+)\/billing$/, billingPage],
  [/^#\/models$/, modelsPage],
  [/^#\/projects$/, projectsPage]
]

const nav = () => document.getElementById("nav")

const signInPage = (message) => {
  nav().hidden = true
  const form = h("form", { id: "sign-in", class: "card narrow", onsubmit: async (event) => {
    event.preventDefault()
    form.querySelector(".error")?.remove()
    try {
      await session.signIn(form.elements.token.value)
      form.elements.token.value = ""
      nav().hidden = false
      route()
    } catch (error) {
      form.prepend(errorBanner(error))
    }
  } },
    h("h1", {}, "Sign in"),
    message ? h("p", { class: "muted" }, message) : null,
    h("label", {}, "Admin token", h("input", { name: "token", type: "password", autocomplete: "current-password", required: true })),
    h("button", { type: "submit" }, "Sign in"))
  render(form)
  form.elements.token.focus()
}

const route = async () => {
  const hash = location.hash === "" || location.hash === "#/" ? "#/projects" : location.hash
  for (const [pattern, page] of routes) {
    const match = pattern.exec(hash.split("?")[0])
    if (match === null) continue
    try {
      await page(...match.slice(1).map(decodeURIComponent))
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return signInPage("Your session has ended; sign in again.")
      render(errorBanner(error))
    }
    return
  }
  render(h("p", {}, "No such page. ", h("a", { href: "#/projects" }, "Back to the projects")))
}

const start = async () => {
  window.addEventListener("hashchange", () => {
    if (!nav().hidden) route()
  })
  document.getElementById("sign-out").addEventListener("click", async () => {
    await session.signOut().catch(() => undefined)
    signInPage("Signed out.")
  })
  document.getElementById("sign-out-everywhere").addEventListener("click", async () => {
    if (!confirm("Sign out every console session, in every browser?")) return
    await session.signOutEverywhere().catch(() => undefined)
    signInPage("Every console session is signed out.")
  })
  try {
    await session.load()
  } catch {
    return signInPage()
  }
  nav().hidden = false
  route()
}

start()
