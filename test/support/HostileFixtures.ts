import { constants, crc32, deflateRawSync } from "node:zlib"
import { unzipGuarded } from "../../src/Services/Files/Extraction/GuardedZip.ts"
import { type WrittenEntry, writeZip } from "../../src/Services/Files/Extraction/ZipWriter.ts"
import { fixtureBytes } from "../Services/Files/Extraction/FixtureManifest.ts"

/**
 * Hostile inputs made by code at test time (nothing big is committed): compression bombs built
 * from real fixture documents, a PDF declaring 100,000 pages, pages and sitemaps of a hostile size.
 */

/**
 * A raw deflate stream of `head`, then `chunk` repeated `times`, then `tail`, built without ever
 * holding the inflated content: the chunk is compressed once, flushed to a byte boundary (a full
 * flush also resets the history), and the same compressed block is repeated.
 */
export const repeatedDeflate = (head: Uint8Array, chunk: Uint8Array, times: number, tail: Uint8Array) => {
  const flush = { level: 9, finishFlush: constants.Z_FULL_FLUSH }
  const block = deflateRawSync(chunk, flush)
  const parts = [deflateRawSync(head, flush), ...Array.from({ length: times }, () => block), deflateRawSync(tail, { level: 9 })]
  let crc = crc32(head)
  for (let i = 0; i < times; i++) crc = crc32(chunk, crc)
  crc = crc32(tail, crc)
  return { data: new Uint8Array(Buffer.concat(parts)), crc, size: head.length + chunk.length * times + tail.length }
}

const text = (value: string) => new TextEncoder().encode(value)
const repeatTo = (unit: string, bytes: number) => text(unit.repeat(Math.floor(bytes / unit.length)))

/** A part compressed as office applications write them. */
const deflated = (name: string, content: Uint8Array): WrittenEntry => ({ name, method: 8, data: deflateRawSync(content), crc: crc32(content), size: content.length })

/** The parts of a real fixture archive, inflated (with limits far above any fixture's). */
const fixtureParts = (path: string) =>
  unzipGuarded(fixtureBytes(path), { maxBytes: 1 << 30, maxRatio: 1 << 20, maxEntries: 10_000 }, "fixture")

/** `documents/report.docx` with its body replaced by `megabytes` MiB of paragraphs, about 1 KB packed per MiB. */
export const docxBomb = (megabytes: number): Uint8Array => {
  const entries: Array<WrittenEntry> = fixtureParts("documents/report.docx")
    .filter((part) => part.name !== "word/document.xml")
    .map((part) => deflated(part.name, part.bytes))
  // Each MiB is one paragraph of spaces, which deflate packs about 1,000 to 1.
  const body = repeatedDeflate(
    text('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'),
    text(`<w:p><w:r><w:t xml:space="preserve">${" ".repeat(1024 * 1024)}</w:t></w:r></w:p>`),
    megabytes,
    text("</w:body></w:document>")
  )
  return writeZip([...entries, { name: "word/document.xml", method: 8, ...body }])
}

/** `documents/sheet.xlsx` whose first sheet declares the whole grid, A1:XFD1048576 (17 billion cells). */
export const xlsxHugeRange = (): Uint8Array =>
  writeZip(
    fixtureParts("documents/sheet.xlsx").map((part) =>
      part.name === "xl/worksheets/sheet1.xml"
        ? deflated(part.name, text(new TextDecoder().decode(part.bytes).replace(/<dimension ref="[^"]*"\/>/, '<dimension ref="A1:XFD1048576"/>')))
        : deflated(part.name, part.bytes)
    )
  )

/**
 * A PDF (PDF 32000-1: objects, cross-reference table, trailer) declaring `pages` pages: its page
 * tree lists the one blank page object `pages` times (600 KB for 100,000).
 */
export const pdfWithPages = (pages: number): Uint8Array => {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Count ${pages} /Kids [${"3 0 R ".repeat(pages)}] >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"
  ]
  const chunks = ["%PDF-1.4\n"]
  const offsets: Array<number> = []
  let length = chunks[0]!.length
  objects.forEach((body, i) => {
    const object = `${i + 1} 0 obj\n${body}\nendobj\n`
    offsets.push(length)
    chunks.push(object)
    length += object.length
  })
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((at) => `${String(at).padStart(10, "0")} 00000 n \n`)]
  chunks.push(...xref, `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`)
  return text(chunks.join(""))
}

/** An HTML page of `bytes` made of many small sections, links and boilerplate-named blocks. */
export const largePage = (bytes: number): string => {
  const items: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const item = `<div class="share row-${i % 50}"><p>Paragraph ${i} of a long page, with <a href="/p/${i}">a link</a> and <em>some</em> text.</p></div>\n`
    items.push(item)
    size += item.length
  }
  return `<!doctype html><html><head><title>Large</title></head><body><article>${items.join("")}</article></body></html>`
}

/** `depth` nested `<div>`s around one word. */
export const nestedPage = (depth: number): string =>
  `<!doctype html><html><head><title>Deep</title></head><body>${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}</body></html>`

/** A sitemaps.org urlset of `bytes` or a little more. */
export const largeSitemap = (origin: string, bytes: number): string => {
  const urls: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const url = `<url><loc>${origin}/page/${i}</loc><lastmod>2026-01-01</lastmod><changefreq>weekly</changefreq></url>\n`
    urls.push(url)
    size += url.length
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("")}</urlset>\n`
}

/** A gzip member (RFC 1952) inflating to `megabytes` MiB of spaces inside an HTML page. */
export const gzipBomb = (megabytes: number): Uint8Array => {
  const body = repeatedDeflate(text("<!doctype html><html><body><p>"), repeatTo(" ", 1024 * 1024), megabytes, text("</p></body></html>"))
  const header = Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(body.crc >>> 0, 0)
  trailer.writeUInt32LE(body.size % 2 ** 32, 4)
  return new Uint8Array(Buffer.concat([header, body.data, trailer]))
}

/**
 * `audio/speech.mp3` behind an ID3v2.3 tag (id3.org, ID3 tag version 2.3.0: a 10-byte header with a
 * syncsafe size, then frames of a 4-character id, a 32-bit size and 2 flag bytes) of `frames`
 * one-letter title frames: 12 bytes each, a 6 MB tag for 500,000, which a metadata reader parses
 * one frame at a time before it reaches the audio.
 */
export const mp3WithTagFrames = (frames: number): Uint8Array => {
  const mp3 = fixtureBytes("audio/speech.mp3")
  const tagged = mp3[0] === 0x49 && mp3[1] === 0x44 && mp3[2] === 0x33
  const ownTag = tagged ? 10 + (((mp3[6]! & 0x7f) << 21) | ((mp3[7]! & 0x7f) << 14) | ((mp3[8]! & 0x7f) << 7) | (mp3[9]! & 0x7f)) : 0
  // TIT2, content size 2, no flags, ISO-8859-1 "a".
  const frame = Uint8Array.from([0x54, 0x49, 0x54, 0x32, 0, 0, 0, 2, 0, 0, 0, 0x61])
  const size = frame.length * frames
  const out = new Uint8Array(10 + size + mp3.length - ownTag)
  out.set([0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f])
  for (let i = 0; i < frames; i++) out.set(frame, 10 + i * frame.length)
  out.set(mp3.subarray(ownTag), 10 + size)
  return out
}
