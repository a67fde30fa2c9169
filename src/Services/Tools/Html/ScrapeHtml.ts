import { fail } from "../../Files/Extraction/ExtractionFailure.ts"
import { maxNesting, nestedDeeperThan, parseDocument } from "./Dom.ts"
import { mainContent } from "./MainContent.ts"
import { htmlToMarkdown } from "./Markdown.ts"
import { absolutizeUrls, documentBase, pageLinks } from "./PageLinks.ts"
import { isoDate, pageMetadata } from "./PageMetadata.ts"
import { htmlToText } from "./PlainText.ts"

export type ContentFormat = "markdown" | "text" | "html"

export interface ScrapedHtml {
  readonly title: string | null
  readonly description: string | null
  readonly language: string | null
  readonly publishedAt: string | undefined
  readonly content: string
  /** Every link of the page (not only of the main content), absolute, deduplicated. */
  readonly links: ReadonlyArray<string>
}

/**
 * One HTML page as the scrape tool returns it. Pure: markup in, text out; the DOM is built
 * from the markup alone (no script runs, nothing is loaded). Metadata and links are read
 * before extraction, which removes most of the page.
 */
export const scrapeHtml = (
  html: string,
  pageUrl: string,
  options: {
    readonly format: ContentFormat
    readonly mainOnly: boolean
    readonly maxLinks: number
    /** The Content-Language header, used when the page does not declare its language. */
    readonly contentLanguage: string | undefined
  }
): ScrapedHtml => {
  const document = parseDocument(html)
  if (nestedDeeperThan(document, maxNesting)) fail("too_complex", `the page nests elements more than ${maxNesting.toLocaleString("en-US")} deep, past what is read`)
  const base = documentBase(document, pageUrl)
  absolutizeUrls(document, base)
  const metadata = pageMetadata(document, options.contentLanguage)
  const links = pageLinks(document, base, options.maxLinks)
  const extracted = mainContent(document, options.mainOnly)
  const content =
    options.format === "html" ? extracted.html.trim() : options.format === "text" ? htmlToText(extracted.html) : htmlToMarkdown(extracted.html)
  return {
    title: metadata.title ?? (extracted.articleTitle?.trim() || null),
    description: metadata.description,
    language: metadata.language,
    publishedAt: metadata.publishedAt ?? isoDate(extracted.publishedAt),
    content,
    links
  }
}
