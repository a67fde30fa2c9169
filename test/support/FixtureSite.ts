import { gzipSync } from "node:zlib"
import { fixture, fixtureBytes } from "../Services/Files/Extraction/FixtureManifest.ts"
import { type LoopbackServer, startLoopbackServer } from "../Services/Fetch/LoopbackServer.ts"

/**
 * A small website on loopback for the web tools: an article wrapped in page furniture (nav,
 * header, ads, cookie banner, sidebar, footer), a home page with links, a robots.txt naming a
 * sitemap index whose children are one gzipped and one plain sitemap, a PDF from the fixture
 * corpus, a redirect chain, error pages and a robots-disallowed area.
 */

export const articlePath = "/articles/otters"
export const pdfPath = "/files/report.pdf"
export const pdfFixture = fixture("documents/report.pdf")

/** What the article's main content contains, and what its boilerplate says (none of which may appear). */
export const article = {
  title: "Field Notes on River Otters",
  description: "How river otters hunt, play and build their dens.",
  publishedAt: "2024-03-01T10:00:00.000Z",
  headings: ["## Hunting", "### Prey", "## Dens"],
  listItems: ["Crayfish and crabs", "Slow fish such as carp", "Frogs in spring"],
  orderedItems: ["Find a bank with roots", "Dig an underwater entrance"],
  codeFence: "```python",
  code: "def count_otters(sightings):",
  link: { text: "river survey", path: "/surveys/2023" },
  boilerplate: ["SUBSCRIBE TO OUR NEWSLETTER", "Buy discount kayaks now", "We use cookies", "Site navigation home", "All rights reserved"]
}

const articleHtml = (origin: string) => `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${article.title}</title>
  <meta name="description" content="${article.description}">
  <meta property="article:published_time" content="2024-03-01T10:00:00Z">
  <script>document.write("scripts never run")</script>
  <style>body { color: #333 }</style>
</head>
<body>
  <div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. <button>OK</button></div>
  <header class="site-header">
    <nav class="main-nav"><ul>
      <li><a href="/">Site navigation home</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li>
    </ul></nav>
  </header>
  <div class="ad-banner top-ad"><a href="https://ads.example/click">Buy discount kayaks now</a></div>
  <main>
    <article>
      <h1>${article.title}</h1>
      <p>River otters are semi-aquatic mammals found along rivers, lakes and coasts. They are playful, curious and
      remarkably good swimmers, closing their ears and nostrils under water. This article collects field notes from a
      <a href="${article.link.path}">${article.link.text}</a> carried out along three rivers over two summers.</p>
      <h2>Hunting</h2>
      <p>Otters hunt mostly at dusk and dawn. They find prey with their sensitive whiskers, which pick up movement in
      murky water where their eyes are of little use. Most dives last less than a minute.</p>
      <h3>Prey</h3>
      <ul><li>${article.listItems[0]}</li><li>${article.listItems[1]}</li><li>${article.listItems[2]}</li></ul>
      <div class="newsletter-signup">SUBSCRIBE TO OUR NEWSLETTER for weekly otter facts!</div>
      <p>Counting otters from their tracks is an old technique; the survey team used a short script to tally sightings
      recorded by volunteers along each stretch of river:</p>
      <pre><code class="language-python">${article.code}
    return sum(1 for s in sightings if s.species == "otter")</code></pre>
      <h2>Dens</h2>
      <p>A den, called a holt, is usually dug into a river bank, with an entrance below the water line. Building one
      takes a few steps:</p>
      <ol><li>${article.orderedItems[0]}</li><li>${article.orderedItems[1]}</li></ol>
      <p>Otters often take over dens dug by beavers or other animals rather than digging their own, and a single otter
      may use several dens along its range, moving between them every few days.</p>
    </article>
  </main>
  <aside class="sidebar"><h4>Popular</h4><ul><li><a href="/articles/beavers">Beavers</a></li></ul></aside>
  <footer class="site-footer"><p>All rights reserved. <a href="${origin}/privacy">Privacy</a></p></footer>
</body>
</html>`

const homeHtml = `<!DOCTYPE html><html lang="en"><head><title>Otter Society</title></head><body>
<nav><a href="/">Home</a> <a href="${articlePath}">Otters</a> <a href="about">About</a> <a href="/contact#form">Contact</a></nav>
<p>Welcome. <a href="https://external.example/partner">Our partner</a>, <a href="mailto:info@otters.example">mail us</a>,
<a href="javascript:void(0)">nothing</a>, <a href="${articlePath}#hunting">hunting notes</a>.</p>
</body></html>`

/** Pages the sitemaps list (paths), and what else they list that a map must leave out. */
export const sitemapPages = ["/", "/about", "/articles/otters", "/articles/beavers", "/articles/herons", "/events/2024?month=5", "/events/2024?month=6"]
export const offSiteUrls = ["https://elsewhere.example/page", "https://cdn.elsewhere.example/file.html"]

const urlset = (urls: ReadonlyArray<string>) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((u) => `  <url><loc>${u.replace(/&/g, "&amp;")}</loc><lastmod>2024-05-01</lastmod></url>`)
    .join("\n")}\n</urlset>\n`

export interface FixtureSite {
  readonly server: LoopbackServer
  /** The User-Agent of every request, in order. */
  readonly userAgents: Array<string>
  readonly origin: string
  readonly url: (path: string) => string
  readonly close: () => Promise<void>
}

export const startFixtureSite = async (): Promise<FixtureSite> => {
  let origin = ""
  const userAgents: Array<string> = []
  const html = (res: import("node:http").ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-language": "en" })
    res.end(body)
  }
  const server = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site")
    const path = url.pathname
    userAgents.push(req.headers["user-agent"] ?? "")
    if (path === "/robots.txt") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end(`User-agent: *\nDisallow: /private/\n\nUser-agent: model-gateway-tools\nDisallow: /private/\nDisallow: /members/\n\nSitemap: ${origin}/sitemap_index.xml\n`)
    }
    if (path === "/sitemap_index.xml") {
      res.writeHead(200, { "content-type": "application/xml" })
      return res.end(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>${origin}/sitemaps/pages.xml.gz</loc></sitemap>
  <sitemap><loc>${origin}/sitemaps/events.xml</loc></sitemap>
  <sitemap><loc>https://elsewhere.example/sitemap.xml</loc></sitemap>
</sitemapindex>`)
    }
    if (path === "/sitemaps/pages.xml.gz") {
      const pages = sitemapPages.filter((p) => !p.startsWith("/events")).map((p) => `${origin}${p}`)
      // A fragment and a duplicate, which normalise away, and an off-site URL, which the map leaves out.
      const body = urlset([...pages, `${origin}${articlePath}#dens`, `${origin}/about`, offSiteUrls[0]!])
      res.writeHead(200, { "content-type": "application/gzip" })
      return res.end(gzipSync(body))
    }
    if (path === "/sitemaps/events.xml") {
      res.writeHead(200, { "content-type": "application/xml" })
      return res.end(urlset([...sitemapPages.filter((p) => p.startsWith("/events")).map((p) => `${origin}${p}`), offSiteUrls[1]!]))
    }
    if (path === "/") return html(res, 200, homeHtml)
    if (path === articlePath) return html(res, 200, articleHtml(origin))
    if (path === pdfPath) {
      res.writeHead(200, { "content-type": "application/pdf" })
      return res.end(fixtureBytes(pdfFixture))
    }
    const hop = /^\/hop\/(\d+)$/.exec(path)
    if (hop !== null) {
      const n = Number(hop[1])
      res.writeHead(n % 2 === 0 ? 301 : 302, { location: n <= 1 ? articlePath : `/hop/${n - 1}` })
      return res.end()
    }
    if (path === "/to") {
      res.writeHead(302, { location: url.searchParams.get("u") ?? "/" })
      return res.end()
    }
    if (path === "/broken") return html(res, 503, "<html><head><title>Down for maintenance</title></head><body><h1>Back soon</h1></body></html>")
    if (path.startsWith("/private/") || path.startsWith("/members/")) return html(res, 200, "<html><body><p>Members only</p></body></html>")
    return html(res, 404, "<html><head><title>Not found</title></head><body><h1>Page not found</h1><p>Nothing lives here.</p></body></html>")
  })
  origin = server.origin
  return { server, userAgents, origin, url: (path) => `${origin}${path}`, close: () => server.close() }
}
