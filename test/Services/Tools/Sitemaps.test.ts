import { gzipSync } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import { readSitemap } from "../../../src/Services/Tools/Sitemaps.ts"
import { normaliseUrl, siteScope } from "../../../src/Services/Tools/SiteScope.ts"

const encode = (text: string) => new TextEncoder().encode(text)

describe("sitemaps", () => {
  it("reads a urlset, gzipped or not, decoding entities and ignoring image entries", () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url><loc> https://a.example/x?a=1&amp;b=2 </loc><image:image><image:loc>https://a.example/i.png</image:loc></image:image></url>
      <url><loc>https://a.example/y</loc></url></urlset>`
    const expected = { pages: ["https://a.example/x?a=1&b=2", "https://a.example/y"], sitemaps: [] }
    expect(readSitemap(encode(xml), "application/xml", 1 << 20)).toEqual(expected)
    expect(readSitemap(gzipSync(xml), "application/gzip", 1 << 20)).toEqual(expected)
  })

  it("reads a sitemap index and the plain-text form", () => {
    const index = `<sitemapindex><sitemap><loc>https://a.example/s1.xml.gz</loc></sitemap><sitemap><loc>https://a.example/s2.xml</loc></sitemap></sitemapindex>`
    expect(readSitemap(encode(index), null, 1 << 20)).toEqual({ pages: [], sitemaps: ["https://a.example/s1.xml.gz", "https://a.example/s2.xml"] })
    expect(readSitemap(encode("https://a.example/1\r\nnot a url\nhttps://a.example/2\n"), "text/plain", 1 << 20)).toEqual({
      pages: ["https://a.example/1", "https://a.example/2"],
      sitemaps: []
    })
  })

  it("skips what is not a sitemap, a broken gzip, and a gzip that inflates past the limit", () => {
    expect(readSitemap(encode("<html><body>hi</body></html>"), "text/html", 1 << 20)).toBeUndefined()
    expect(readSitemap(new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x01]), null, 1 << 20)).toBeUndefined()
    const bomb = gzipSync(`<urlset>${"<url><loc>https://a.example/</loc></url>".repeat(50_000)}</urlset>`)
    expect(bomb.length).toBeLessThan(64 * 1024)
    expect(readSitemap(bomb, null, 1 << 20)).toBeUndefined()
  })

  it("does not expand DOCTYPE entities", () => {
    const xml = `<!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><urlset><url><loc>&b;</loc></url></urlset>`
    const read = readSitemap(encode(xml), null, 1 << 20)
    expect(JSON.stringify(read ?? {})).not.toContain("aaaaaaaaaa")
  })
})

describe("site scope and normalisation", () => {
  const start = new URL("https://www.example.com/start")
  const inScope = (url: string, subdomains = false) => siteScope(start, subdomains).contains(new URL(url))

  it("keeps the host with or without www., on either scheme's default port", () => {
    expect(inScope("https://example.com/a")).toBe(true)
    expect(inScope("http://www.example.com/b")).toBe(true)
    expect(inScope("https://example.com:8443/c")).toBe(false)
    expect(inScope("https://blog.example.com/d")).toBe(false)
    expect(inScope("https://blog.example.com/d", true)).toBe(true)
    expect(inScope("https://notexample.com/e", true)).toBe(false)
    expect(inScope("https://example.com.evil.test/f", true)).toBe(false)
  })

  it("normalises: fragment and empty query dropped, host lower-cased, default port dropped, relative resolved", () => {
    expect(normaliseUrl("HTTPS://Example.COM:443/a/../b?#frag")?.href).toBe("https://example.com/b")
    expect(normaliseUrl("c?x=1", new URL("https://example.com/a/"))?.href).toBe("https://example.com/a/c?x=1")
    expect(normaliseUrl("/relative")).toBeUndefined()
    expect(normaliseUrl("mailto:a@example.com")).toBeUndefined()
    expect(normaliseUrl("https://user:pw@example.com/")).toBeUndefined()
  })
})
