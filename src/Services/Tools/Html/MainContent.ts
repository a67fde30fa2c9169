import { Readability } from "@mozilla/readability"
import { type HtmlDocument, type HtmlElement, elements, parseDocument } from "./Dom.ts"

/** Never content: scripts, styles, embedded objects, forms and anything hidden from readers. */
const noise = [
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "canvas",
  "svg",
  "form",
  "button",
  "input",
  "select",
  "textarea",
  "dialog",
  "[hidden]",
  '[aria-hidden="true"]'
].join(", ")

/** Page furniture dropped by the fallback when Readability finds no article. */
const furniture = [
  "header",
  "nav",
  "footer",
  "aside",
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]'
].join(", ")

/** Boilerplate by name: ad slots, cookie banners, share bars, newsletter prompts. */
const boilerplateName =
  /(^|[\s_-])(ads?|advert\w*|sponsor\w*|promo\w*|banner|cookie\w*|consent|gdpr|share|social|newsletter|subscribe|popup|modal|breadcrumbs?|skip-link|sidebar|related|comments?|outbrain|taboola)($|[\s_-])/i

const removeAll = (root: HtmlElement | HtmlDocument, selectors: string) => {
  for (const element of elements(root.querySelectorAll(selectors))) element.remove()
}

/** Page furniture outside the article: a `<header>` inside an `<article>` holds its title and stays. */
const removeFurniture = (root: HtmlElement) => {
  for (const element of elements(root.querySelectorAll(furniture))) {
    if (element.parentNode !== null && element.parentNode.nodeName !== "#document-fragment" && element.closest("article, main") === null) element.remove()
  }
}

const textLength = (node: HtmlElement) => (node.textContent ?? "").replace(/\s+/g, " ").length

/**
 * Removes elements named like boilerplate. A name alone is weak evidence (`post-sidebar-layout`
 * may wrap the whole page), so an element goes only when it holds no heading or article and
 * less than a third of the text.
 */
const removeBoilerplate = (root: HtmlElement) => {
  const total = textLength(root)
  for (const element of elements(root.querySelectorAll("[class], [id]"))) {
    if (element.tagName === "BODY" || element.tagName === "HTML" || element.parentNode === null) continue
    const names = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`
    if (!boilerplateName.test(names)) continue
    if (element.querySelector("article, main, h1") !== null || textLength(element) * 3 > total) continue
    element.remove()
  }
}

/** Classes Readability keeps: code languages, which the Markdown converter turns into fence info. */
const codeLanguageClasses = (document: HtmlDocument): Array<string> => {
  const found = new Set<string>()
  for (const code of elements(document.querySelectorAll("pre[class], code[class]"))) {
    for (const name of (code.getAttribute("class") ?? "").split(/\s+/)) {
      if (/^(language|lang)-[\w+#.-]+$/.test(name)) found.add(name)
    }
  }
  return [...found]
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Above this many elements Readability gives up (it is quadratic in places) and the fallback is used. */
const maxElements = 100_000

export interface MainContent {
  /** Cleaned HTML of the content (a fragment). */
  readonly html: string
  /** Readability's title when it found an article (the document title otherwise stays). */
  readonly articleTitle: string | undefined
  readonly publishedAt: string | undefined
}

/**
 * The content of a page as cleaned HTML. With `mainOnly`, Mozilla's Readability (the Firefox
 * Reader View algorithm) picks the article; when it finds none, the body without page furniture
 * and boilerplate is used. Without it, the whole body minus scripts, styles and hidden parts.
 * `document` must already have absolute URLs; it is changed.
 */
export const mainContent = (document: HtmlDocument, mainOnly: boolean): MainContent => {
  removeAll(document, noise)
  if (mainOnly) {
    const preserved = codeLanguageClasses(document)
    let article: ReturnType<Readability["parse"]> = null
    try {
      // Readability changes the document it reads: give it a copy, keep the original for the fallback.
      const copy = document.cloneNode(true) as HtmlDocument
      if (copy.body !== null) {
        removeFurniture(copy.body)
        removeBoilerplate(copy.body)
      }
      article = new Readability(copy as never, { maxElemsToParse: maxElements, classesToPreserve: preserved, keepClasses: false }).parse()
    } catch {
      article = null
    }
    const content = article?.content
    if (content !== undefined && content !== null && (article?.textContent ?? "").trim() !== "") {
      const body = parseDocument(content).body!
      // Readability drops a heading that repeats the title; the content reads better with it.
      const title = article?.title?.trim() ?? ""
      const heading = title !== "" && body.querySelector("h1") === null ? `<h1>${escapeHtml(title)}</h1>` : ""
      return { html: `${heading}${body.innerHTML}`, articleTitle: article?.title ?? undefined, publishedAt: article?.publishedTime ?? undefined }
    }
    const body = document.body
    if (body === null) return { html: "", articleTitle: undefined, publishedAt: undefined }
    removeFurniture(body)
    removeBoilerplate(body)
    const main = body.querySelector("main, [role=main], article")
    return { html: (main ?? body).innerHTML, articleTitle: undefined, publishedAt: undefined }
  }
  return { html: document.body?.innerHTML ?? "", articleTitle: undefined, publishedAt: undefined }
}
