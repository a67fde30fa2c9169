import { describe, expect, it } from "@effect/vitest"
import { beforeAll } from "vitest"
import { Schema } from "effect"
import { scrapeHtml } from "../../../src/Services/Tools/Html/ScrapeHtml.ts"
import { domReady } from "../../../src/Services/Tools/Html/Dom.ts"
import { isoDate } from "../../../src/Services/Tools/Html/PageMetadata.ts"
import { decodeTextBody, looksLikeHtml } from "../../../src/Services/Tools/Html/TextBody.ts"
import { htmlToText } from "../../../src/Services/Tools/Html/PlainText.ts"
import { cutText } from "../../../src/Services/Tools/ScrapeTool.ts"

// The DOM implementation is loaded on first use, as the tools do before parsing.
beforeAll(domReady)

const options = { format: "markdown", mainOnly: true, maxLinks: 100, contentLanguage: undefined } as const

describe("scraping HTML", () => {
  it("resolves links against <base href>, keeps fragment-only links and drops javascript: links", () => {
    const page = scrapeHtml(
      `<html><head><base href="/docs/v2/"><title>Docs</title></head><body><main><p>See <a href="guide">the guide</a>, <a href="#top">top</a>,
       <a href="javascript:alert(1)">run</a> and <img src="img/a.png" alt="diagram"></p></main></body></html>`,
      "https://example.com/index.html",
      { ...options, mainOnly: false }
    )
    expect(page.content).toContain("[the guide](https://example.com/docs/v2/guide)")
    expect(page.content).toContain("![diagram](https://example.com/docs/v2/img/a.png)")
    expect(page.content).not.toContain("javascript:")
    // A fragment-only link resolves against the base too, as in a browser; the fragment is dropped.
    expect(page.links).toEqual(["https://example.com/docs/v2/guide", "https://example.com/docs/v2/"])
  })

  it("reads the publication date from JSON-LD, the language from Content-Language, and falls back to og:title", () => {
    const page = scrapeHtml(
      `<html><head><meta property="og:title" content="From Open Graph"><script type="application/ld+json">{"@graph":[{"@type":"NewsArticle","datePublished":"2023-11-05"}]}</script></head>
       <body><p>Short page.</p></body></html>`,
      "https://example.com/",
      { ...options, contentLanguage: "fr-CA, en" }
    )
    expect(page).toMatchObject({ title: "From Open Graph", language: "fr-CA", publishedAt: "2023-11-05T00:00:00.000Z", description: null })
  })

  it("takes the language from <meta http-equiv>, and gives a bare fragment no title", () => {
    const meta = scrapeHtml(`<html><head><meta http-equiv="Content-Language" content="nl"></head><body><p>Hallo</p></body></html>`, "https://example.com/", options)
    expect(meta.language).toBe("nl")
    const bare = scrapeHtml("<p>no markup around me</p>", "https://example.com/", { ...options, format: "text" })
    expect(bare).toMatchObject({ title: null, description: null, language: null, content: "no markup around me" })
  })

  it("without an article, keeps the page minus its furniture", () => {
    const page = scrapeHtml(
      `<html><body><nav><a href="/">Home</a></nav><div class="cookie-notice">Accept cookies</div><main><h2>Opening hours</h2><p>Monday to Friday.</p></main>
       <footer>Imprint</footer></body></html>`,
      "https://example.com/",
      options
    )
    expect(page.content).toContain("## Opening hours")
    expect(page.content).toContain("Monday to Friday.")
    for (const noise of ["Home", "Accept cookies", "Imprint"]) expect(page.content).not.toContain(noise)
  })

  it("does not drop a wrapper whose class merely looks like boilerplate", () => {
    const body = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of a long enough article body to be the main content of this page, with detail.</p>`).join("")
    const page = scrapeHtml(`<html><body><div class="post-sidebar-layout"><article><h1>Title</h1>${body}</article></div></body></html>`, "https://example.com/", options)
    expect(page.content).toContain("Paragraph 5")
  })

  it("renders text with numbered ordered lists, tab-separated cells and verbatim <pre>", () => {
    const text = htmlToText(`<h2>Steps</h2><ol start="3"><li>Mix</li><li>Bake</li></ol><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><pre>  indented\n    more</pre><p>a<br>b</p>`)
    expect(text).toBe("Steps\n\n3. Mix\n4. Bake\n\na\tb\n1\t2\n\n  indented\n    more\n\na\nb")
  })
})

describe("text bodies", () => {
  const bytes = (values: ReadonlyArray<number>) => new Uint8Array(values)
  it("decodes by the header's charset, a BOM, or a <meta charset>, else UTF-8", () => {
    expect(decodeTextBody(bytes([0x63, 0x61, 0x66, 0xe9]), "text/html; charset=ISO-8859-1")).toBe("café")
    const meta = new TextEncoder().encode('<meta charset="windows-1252"><p>')
    expect(decodeTextBody(new Uint8Array([...meta, 0x80]), "text/html")).toBe('<meta charset="windows-1252"><p>€')
    expect(decodeTextBody(bytes([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), "text/plain")).toBe("hi")
    expect(decodeTextBody(new TextEncoder().encode("Zürich"), "text/plain; charset=no-such-charset")).toBe("Zürich")
  })

  it("takes HTML by its type, or by its first bytes when the type is missing or generic", () => {
    const page = new TextEncoder().encode("  <!DOCTYPE html><html>")
    expect(looksLikeHtml(page, "text/html; charset=utf-8")).toBe(true)
    expect(looksLikeHtml(page, null)).toBe(true)
    expect(looksLikeHtml(page, "application/octet-stream")).toBe(true)
    expect(looksLikeHtml(page, "text/plain")).toBe(false)
    expect(looksLikeHtml(new TextEncoder().encode("%PDF-1.7"), null)).toBe(false)
  })
})

describe("limits and dates", () => {
  it("cuts content without splitting a surrogate pair", () => {
    expect(cutText("ab😀cd", 3)).toEqual({ text: "ab", truncated: true })
    expect(cutText("abc", 3)).toEqual({ text: "abc", truncated: false })
  })

  it.prop("a cut is a prefix no longer than the limit, well-formed UTF-16", { text: Schema.String, max: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 })) }, ({ text, max }) => {
    const cut = cutText(text, max)
    expect(text.startsWith(cut.text)).toBe(true)
    expect(cut.text.length).toBeLessThanOrEqual(max)
    expect(cut.truncated).toBe(text.length > max)
    if (cut.truncated) expect(/[\uD800-\uDBFF]$/.test(cut.text)).toBe(false)
  })

  it("reads zone-less and date-only forms as UTC and refuses nonsense", () => {
    expect(isoDate("2024-02-10T08:30:00")).toBe("2024-02-10T08:30:00.000Z")
    expect(isoDate("2024-02-10")).toBe("2024-02-10T00:00:00.000Z")
    expect(isoDate("Sat, 10 Feb 2024 09:00:00 GMT")).toBe("2024-02-10T09:00:00.000Z")
    expect(isoDate("yesterday")).toBeUndefined()
    expect(isoDate("0001-01-01")).toBeUndefined()
  })
})
