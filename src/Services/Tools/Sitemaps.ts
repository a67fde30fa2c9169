import { gunzipSync } from "node:zlib"
import { XMLParser } from "fast-xml-parser"
import { decodeTextBody } from "./Html/TextBody.ts"

/** What one sitemap file lists: pages (`<urlset>`) or further sitemaps (`<sitemapindex>`). */
export interface SitemapEntries {
  readonly pages: ReadonlyArray<string>
  readonly sitemaps: ReadonlyArray<string>
}

const parser = new XMLParser({
  ignoreAttributes: true,
  // `<image:loc>` and friends lose their prefix and stay nested under their own element.
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === "url" || name === "sitemap"
})

const locs = (entries: unknown): Array<string> =>
  Array.isArray(entries)
    ? entries.flatMap((entry) => {
      const loc = entry !== null && typeof entry === "object" ? (entry as Record<string, unknown>)["loc"] : undefined
      return typeof loc === "string" && loc.trim() !== "" ? [loc.trim()] : []
    })
    : []

const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b

/**
 * Reads a sitemap (sitemaps.org 0.9): XML `<urlset>` or `<sitemapindex>`, gzip-compressed or
 * not, or the plain-text form (one URL per line). Decompression stops at `maxBytes`, so a
 * small gzip bomb cannot grow past the fetch limit. Undefined for anything unreadable: a bad
 * sitemap is skipped, not an error of the map.
 */
export const readSitemap = (bytes: Uint8Array, contentType: string | null, maxBytes: number): SitemapEntries | undefined => {
  let body = bytes
  if (isGzip(bytes)) {
    try {
      body = gunzipSync(bytes, { maxOutputLength: maxBytes })
    } catch {
      return undefined
    }
  }
  const text = decodeTextBody(body, isGzip(bytes) ? null : contentType).replace(/^\uFEFF/, "")
  const start = text.trimStart()
  if (!start.startsWith("<")) {
    const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => /^https?:\/\//i.test(line))
    return lines.length === 0 ? undefined : { pages: lines, sitemaps: [] }
  }
  let document: Record<string, unknown>
  try {
    document = parser.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  const urlset = document["urlset"] as Record<string, unknown> | undefined
  const index = document["sitemapindex"] as Record<string, unknown> | undefined
  if (urlset === undefined && index === undefined) return undefined
  return { pages: locs(urlset?.["url"]), sitemaps: locs(index?.["sitemap"]) }
}
