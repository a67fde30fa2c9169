import { type HtmlDocument, elements } from "./Dom.ts"

/**
 * An http(s) URL without its fragment, or undefined for anything else (mailto:, javascript:,
 * credentials, junk). Without `base`, only absolute URLs are accepted.
 */
export const httpUrl = (raw: string, base?: URL | string): URL | undefined => {
  let url: URL
  try {
    url = new URL(raw.trim(), base)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.username !== "" || url.password !== "") return undefined
  url.hash = ""
  return url
}

/** The base URLs resolve against: the page's `<base href>` when it is an http(s) URL, else the page's URL. */
export const documentBase = (document: HtmlDocument, pageUrl: string): URL => {
  const page = new URL(pageUrl)
  const declared = document.querySelector("base[href]")?.getAttribute("href")
  const base = declared === null || declared === undefined ? undefined : httpUrl(declared, page)
  return base ?? page
}

const urlAttributes: ReadonlyArray<readonly [string, string]> = [
  ["a[href]", "href"],
  ["area[href]", "href"],
  ["img[src]", "src"],
  ["video[src]", "src"],
  ["audio[src]", "src"],
  ["source[src]", "src"]
]

/**
 * Rewrites link and media URLs to absolute ones, so converted content (Markdown, text, HTML)
 * keeps working links wherever it is read. `srcset` is dropped rather than rewritten: the
 * converters do not use it. Fragment-only links stay as they are.
 */
export const absolutizeUrls = (document: HtmlDocument, base: URL): void => {
  for (const [selector, attribute] of urlAttributes) {
    for (const element of elements(document.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute) ?? ""
      if (value.startsWith("#")) continue
      try {
        const url = new URL(value.trim(), base)
        // Script and inline-data URLs are never worth a link in extracted content.
        if (url.protocol === "javascript:" || url.protocol === "vbscript:" || url.protocol === "data:") element.removeAttribute(attribute)
        else element.setAttribute(attribute, url.href)
      } catch {
        element.removeAttribute(attribute)
      }
    }
  }
  for (const element of elements(document.querySelectorAll("[srcset]"))) element.removeAttribute("srcset")
  for (const element of elements(document.querySelectorAll("base"))) element.remove()
}

/** Every distinct http(s) link target of the page, in document order, at most `max`. */
export const pageLinks = (document: HtmlDocument, base: URL, max: number): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const anchor of elements(document.querySelectorAll("a[href], area[href]"))) {
    if (seen.size >= max) break
    const url = httpUrl(anchor.getAttribute("href") ?? "", base)
    if (url !== undefined) seen.add(url.href)
  }
  return [...seen]
}
