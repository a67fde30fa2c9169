import { gfm } from "@joplin/turndown-plugin-gfm"
import TurndownService from "turndown"

/**
 * HTML to Markdown with Turndown and its GitHub-flavoured plugin (tables, strikethrough, task
 * lists, fenced code with its language). One converter for the process: Turndown keeps no
 * per-conversion state.
 */
const converter = new TurndownService({
  headingStyle: "atx",
  codeBlockStyle: "fenced",
  bulletListMarker: "-",
  emDelimiter: "_",
  linkStyle: "inlined"
})
converter.use(gfm)
converter.remove(["script", "style", "noscript", "template"])

/** Images without a source or description say nothing in Markdown. */
converter.addRule("emptyImage", {
  filter: (node) => node.nodeName === "IMG" && (node.getAttribute("src") ?? "") === "" && (node.getAttribute("alt") ?? "") === "",
  replacement: () => ""
})

export const htmlToMarkdown = (html: string): string =>
  converter
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim()
