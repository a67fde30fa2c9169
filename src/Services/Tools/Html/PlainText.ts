import { trimEndChars } from "../../../Domain/TrimChars.ts"
import { ELEMENT_NODE, type HtmlElement, type HtmlNode, TEXT_NODE, parseDocument } from "./Dom.ts"

/** Elements that start on a line of their own. */
const blocks = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DD", "DETAILS", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE",
  "FOOTER", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION",
  "SUMMARY", "TABLE", "TBODY", "THEAD", "TFOOT", "TR", "UL", "CAPTION"
])

/**
 * HTML as readable plain text: paragraphs and headings separated by blank lines, list items
 * prefixed with "- " (numbered in ordered lists), table cells separated by tabs, `<pre>` kept verbatim and other
 * whitespace collapsed the way a browser renders it.
 */
export const htmlToText = (html: string): string => {
  const out: Array<string> = []
  /** One entry per open list: the last number given in an `<ol>`, undefined in a `<ul>`. */
  const counters: Array<number | undefined> = []
  const trailingNewlines = () => {
    let count = 0
    for (let i = out.length - 1; i >= 0; i--) {
      const piece = out[i]!
      const stripped = trimEndChars(piece, "\n")
      count += piece.length - stripped.length
      if (stripped !== "") break
    }
    return count
  }
  const atLineStart = () => {
    const last = out[out.length - 1]
    return last === undefined || last.endsWith("\n") || /(^|\n)(- |\d+\. )$/.test(last) || last.endsWith("\t")
  }
  /** Ends the current line and, for `lines` 2, leaves one blank line; never more. */
  const breakLines = (lines: number) => {
    if (out.length === 0) return
    const missing = lines - trailingNewlines()
    if (missing > 0) out.push("\n".repeat(missing))
  }
  const walk = (node: HtmlNode, pre: boolean) => {
    if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? ""
      if (pre) return void out.push(text)
      const collapsed = text.replace(/\s+/g, " ")
      const piece = atLineStart() ? collapsed.trimStart() : collapsed
      if (piece !== "") out.push(piece)
      return
    }
    if (node.nodeType !== ELEMENT_NODE) return
    const name = node.nodeName.toUpperCase()
    if (name === "BR") return void out.push("\n")
    if (name === "IMG") {
      const alt = (node as HtmlElement).getAttribute("alt")?.trim()
      if (alt) out.push(alt)
      return
    }
    const block = blocks.has(name)
    const paragraph = block && name !== "LI" && name !== "TR" && name !== "DT" && name !== "DD"
    if (block) breakLines(paragraph ? 2 : 1)
    if (name === "OL") {
      const start = Number((node as HtmlElement).getAttribute("start") ?? "1")
      counters.push(Number.isInteger(start) ? start - 1 : 0)
    }
    if (name === "UL") counters.push(undefined)
    if (name === "LI") {
      const depth = counters.length - 1
      const counter = counters[depth]
      if (counter === undefined) out.push("- ")
      else {
        counters[depth] = counter + 1
        out.push(`${counter + 1}. `)
      }
    }
    if ((name === "TD" || name === "TH") && !atLineStart()) out.push("\t")
    const children = node.childNodes
    for (let i = 0; i < children.length; i++) walk(children[i]!, pre || name === "PRE")
    if (name === "OL" || name === "UL") counters.pop()
    if (block) breakLines(paragraph ? 2 : 1)
  }
  const body = parseDocument(html).body
  if (body !== null) walk(body, false)
  return out
    .join("")
    .split("\n")
    .map((line) => trimEndChars(line, " \t"))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
}
