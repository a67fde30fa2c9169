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

/** Dollars as people write them: two decimals, more only for amounts under a cent. */
export const dollars = (value) => {
  const n = Number(value)
  const digits = n !== 0 && Math.abs(n) < 0.01 ? 6 : 2
  return `${n < 0 ? "−" : ""}$${Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`
}

/** A whole count with thousands separators. */
export const count = (value) => Number(value).toLocaleString("en-US", { maximumFractionDigits: 0 })

/** A UTC day as `27 Nov 2026`. */
export const day = (seconds) => (seconds === null || seconds === undefined ? "—"
  : new Date(seconds * 1000).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }))

/** What to do when there is nothing to show: a sentence and, optionally, a link. */
export const emptyState = (text, link) =>
  h("div", { class: "empty card", role: "note" }, h("p", {}, text), link ? h("p", {}, h("a", { href: link[1] }, link[0])) : null)

/**
 * A table of `rows` with one column per [heading, cell function]; `empty` says what to do when
 * there are none. `rowAttrs(row)` adds attributes to a row (a link target, a data id).
 */
export const table = (columns, rows, attrs = {}, empty = "Nothing yet.", rowAttrs = () => ({})) =>
  h("table", attrs,
    h("thead", {}, h("tr", {}, columns.map(([heading]) => h("th", {}, heading)))),
    h("tbody", {}, rows.length === 0
      ? h("tr", {}, h("td", { colspan: columns.length, class: "muted empty-row" }, empty))
      : rows.map((row) => h("tr", rowAttrs(row), columns.map(([, cell]) => h("td", {}, cell(row)))))))

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

/** Runs a button's `action`, showing its error at the top of the page instead of losing it. */
export const act = (action) => async (event) => {
  const button = event.currentTarget
  if (button) button.disabled = true
  try {
    await action(event)
  } catch (error) {
    document.getElementById("main").prepend(errorBanner(error))
  } finally {
    if (button) button.disabled = false
  }
}
