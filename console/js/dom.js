// Builds elements from data without ever parsing data as HTML, so nothing a user typed can inject markup.
export const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value)
    else if (key === "class") el.className = value
    else if (key === "value") el.value = value
    else el.setAttribute(key, value === true ? "" : String(value))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : String(child))
  }
  return el
}

/** Replaces the page's content. */
export const render = (...children) => {
  const main = document.getElementById("main")
  main.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false))
  return main
}

export const date = (seconds) => (seconds === null || seconds === undefined ? "—" : new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 16) + " UTC")

export const usd = (value) => `$${Number(value).toFixed(value !== 0 && Math.abs(value) < 0.01 ? 6 : 4)}`

/** A table of `rows` with one column per [heading, cell function]. */
export const table = (columns, rows, attrs = {}) =>
  h("table", attrs,
    h("thead", {}, h("tr", {}, columns.map(([heading]) => h("th", {}, heading)))),
    h("tbody", {}, rows.length === 0
      ? h("tr", {}, h("td", { colspan: columns.length, class: "muted" }, "Nothing yet."))
      : rows.map((row) => h("tr", {}, columns.map(([, cell]) => h("td", {}, cell(row)))))))

/** Shows an error from the API (its envelope's message) or the browser in a banner. */
export const errorBanner = (error) =>
  h("p", { class: "error", role: "alert" }, error && error.message ? error.message : String(error))

/** Runs `action` from a form submit, showing its error above the form instead of losing it. */
export const onSubmit = (action) => async (event) => {
  event.preventDefault()
  const form = event.currentTarget
  form.querySelector(".error")?.remove()
  const button = form.querySelector("button[type=submit]")
  if (button) button.disabled = true
  try {
    await action(new FormData(form), form)
  } catch (error) {
    form.prepend(errorBanner(error))
  } finally {
    if (button) button.disabled = false
  }
}
