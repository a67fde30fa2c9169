import { type HtmlDocument, elements } from "./Dom.ts"

export interface PageMetadata {
  readonly title: string | null
  readonly description: string | null
  readonly language: string | null
  /** ISO 8601, when the page declares when it was published and the date can be read. */
  readonly publishedAt: string | undefined
}

const clean = (value: string | null | undefined): string | null => {
  const text = value?.replace(/\s+/g, " ").trim()
  return text === undefined || text === "" ? null : text
}

const meta = (document: HtmlDocument, selectors: ReadonlyArray<string>): string | null => {
  for (const selector of selectors) {
    const value = clean(document.querySelector(selector)?.getAttribute("content"))
    if (value !== null) return value
  }
  return null
}

/**
 * A date as ISO 8601 (UTC). Date-only and zone-less forms are read as UTC, not as the
 * server's local time, so the answer does not depend on where the gateway runs.
 */
export const isoDate = (value: string | null | undefined): string | undefined => {
  const text = value?.trim()
  if (text === undefined || text === "") return undefined
  const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)
  const ms = Date.parse(zoneless ? `${text}Z` : text)
  if (!Number.isFinite(ms)) return undefined
  const year = new Date(ms).getUTCFullYear()
  return year < 1990 || year > 2200 ? undefined : new Date(ms).toISOString()
}

/** `datePublished` from the page's JSON-LD (schema.org), looking through `@graph` and arrays. */
const jsonLdPublished = (document: HtmlDocument): string | undefined => {
  const find = (value: unknown, depth: number): string | undefined => {
    if (depth > 4 || value === null || typeof value !== "object") return undefined
    if (Array.isArray(value)) {
      for (const item of value) {
        const found = find(item, depth + 1)
        if (found !== undefined) return found
      }
      return undefined
    }
    const record = value as Record<string, unknown>
    if (typeof record["datePublished"] === "string") return record["datePublished"]
    return find(record["@graph"], depth + 1)
  }
  for (const script of elements(document.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      const found = find(JSON.parse(script.textContent ?? ""), 0)
      if (found !== undefined) return found
    } catch {
      // A broken JSON-LD block says nothing; the meta tags may.
    }
  }
  return undefined
}

const publishedSelectors = [
  'meta[property="article:published_time"]',
  'meta[name="article:published_time"]',
  'meta[itemprop="datePublished"]',
  'meta[name="citation_publication_date"]',
  'meta[name="dc.date.issued"]',
  'meta[name="DC.date.issued"]',
  'meta[name="dcterms.created"]',
  'meta[name="date"]',
  'meta[name="pubdate"]'
]

/** Read before the content is extracted (extraction removes the head's siblings). */
export const pageMetadata = (document: HtmlDocument, contentLanguage: string | undefined): PageMetadata => {
  const title = clean(document.querySelector("title")?.textContent) ?? meta(document, ['meta[property="og:title"]', 'meta[name="twitter:title"]']) ??
    clean(document.querySelector("h1")?.textContent)
  const description = meta(document, ['meta[name="description"]', 'meta[property="og:description"]', 'meta[name="twitter:description"]'])
  const language = clean(document.documentElement.getAttribute("lang")) ?? clean(contentLanguage?.split(",")[0]) ??
    meta(document, ['meta[http-equiv="content-language" i]'])
  const timeElement = document.querySelector("article time[datetime], time[itemprop=datePublished][datetime]")?.getAttribute("datetime")
  const publishedAt = isoDate(meta(document, publishedSelectors)) ?? isoDate(jsonLdPublished(document)) ?? isoDate(timeElement)
  return { title, description, language, publishedAt }
}
