import { describe, expect, layer } from "@effect/vitest"
import CFB from "cfb"
import { Effect, Layer, Schema } from "effect"
import type { ExtractedDocument } from "../../../src/Domain/ExtractedDocument.ts"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { expectRejection } from "./Extraction/ExpectRejection.ts"
import {
  codeForClass,
  collapse,
  fixture,
  fixtureBytes,
  type FixtureEntry,
  fixtureName,
  manifest
} from "./Extraction/FixtureManifest.ts"

const maxRenderedPages = 2
const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { extraction: { max_rendered_pages: maxRenderedPages } } })
const ExtractorTest = Extractor.layerWithoutCache.pipe(Layer.provide(GatewayConfigFile.fromConfig(config)))

const binaryFormats = new Set(["pdf", "docx", "doc", "odt", "rtf", "pptx", "ppt", "odp", "xlsx", "xls", "ods"])
const documents = manifest.files.filter((f) => f.category === "document")
const badFiles = manifest.files.filter((f) => f.category === "bad")

const extractFixture = (entry: FixtureEntry) =>
  Effect.flatMap(Extractor, (x) => x.extract({ bytes: fixtureBytes(entry), filename: fixtureName(entry) }))

/** Tokens only OCR could find: the PDF has no text layer for them. */
const ocrOnlyTokens = (entry: FixtureEntry): Set<string> => {
  const ocr = new Set(Object.values(entry.ocr_page_tokens ?? {}).flat())
  for (const token of Object.values(entry.page_tokens ?? {}).flat()) ocr.delete(token)
  return ocr
}

/** Reads back the sheet tables of a spreadsheet's text: sheet name -> "A2" -> shown value. */
const parseSheets = (text: string): Map<string, Map<string, string>> => {
  const sheets = new Map<string, Map<string, string>>()
  let current: Map<string, string> | undefined
  let columns: Array<string> = []
  for (const line of text.split("\n")) {
    const header = /^--- Sheet \d+: (.*?)(?: \([A-Z]+\d+(?::[A-Z]+\d+)?\))? ---$/.exec(line)
    if (header?.[1] !== undefined) {
      current = new Map()
      sheets.set(header[1], current)
      continue
    }
    if (current === undefined || !line.startsWith("|")) continue
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
    const [row, ...values] = cells
    if (row === "") columns = values
    else values.forEach((value, i) => current?.set(`${columns[i]}${row}`, value))
  }
  return sheets
}

const checkDocument = (entry: FixtureEntry, doc: ExtractedDocument) => {
  const text = collapse(doc.text)
  const ocrOnly = ocrOnlyTokens(entry)
  expect(doc.format).toBe(binaryFormats.has(entry.format) ? entry.format : "text")
  expect(doc.mimeType).toBe(entry.mime)
  expect(doc.cached).toBe(false)
  for (const token of entry.expected_tokens ?? []) {
    if (ocrOnly.has(token)) expect(text).not.toContain(token)
    else expect(text).toContain(token)
  }
  if (entry.format === "pdf") {
    expect(doc.pages).toBe(entry.pages)
    for (const [page, tokens] of Object.entries(entry.page_tokens ?? {})) {
      for (const token of tokens) expect(collapse(doc.pageTexts?.[Number(page) - 1] ?? "")).toContain(token)
    }
    const scannedPages = Object.keys(entry.ocr_page_tokens ?? {}).map(Number)
    expect(doc.scannedPages).toEqual(scannedPages)
    expect(doc.scanned).toBe(scannedPages.length > 0)
    for (const page of scannedPages) expect(doc.pageTexts?.[page - 1]).toBe("")
  } else {
    expect(doc.scanned).toBe(false)
    expect(doc.scannedPages).toEqual([])
  }
  if (entry.slides !== undefined) {
    expect(doc.pages).toBe(entry.slides)
    expect(doc.pageTexts?.map((slide) => slide.split("\n")[0])).toEqual(entry.slide_titles)
    for (const [slide, tokens] of Object.entries(entry.slide_tokens ?? {})) {
      for (const token of tokens) expect(collapse(doc.pageTexts?.[Number(slide) - 1] ?? "")).toContain(token)
    }
  }
  if (entry.sheets !== undefined) {
    const sheets = parseSheets(doc.text)
    expect([...sheets.keys()]).toEqual(entry.sheets)
    for (const [address, value] of Object.entries(entry.cells ?? {})) {
      const [sheet, cell] = address.split("!")
      expect(sheets.get(sheet ?? "")?.get(cell ?? ""), address).toBe(value)
    }
  }
  if (entry.slides === undefined && entry.format !== "pdf") {
    expect(doc.pages).toBeNull()
    expect(doc.pageTexts).toBeNull()
  }
}

/** A ZIP bundle as iWork writes them, built from `entries` (path -> bytes). */
const zipBundle = (entries: Record<string, Uint8Array | string>): Uint8Array => {
  const container = CFB.utils.cfb_new()
  for (const [path, content] of Object.entries(entries)) {
    CFB.utils.cfb_add(container, path, typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content))
  }
  const written: unknown = CFB.write(container, { fileType: "zip", type: "buffer", compression: true })
  if (!(written instanceof Uint8Array)) throw new Error("cfb did not write a buffer")
  return written
}

const pngSize = (png: Uint8Array) => {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

layer(ExtractorTest, { excludeTestServices: true })("Extractor", (it) => {
  describe("every document in the corpus", () => {
    for (const entry of documents) {
      it.effect(`reads ${entry.path}`, () => Effect.map(extractFixture(entry), (doc) => checkDocument(entry, doc)))
    }
  })

  describe("every bad input in the corpus", () => {
    for (const entry of badFiles) {
      if (entry.lenient_reader_recovers_text === true) {
        // Repaired on purpose (see PdfText.ts): pdf.js rebuilds the cross-reference table like Poppler does.
        it.effect(`repairs ${entry.path} and recovers its text`, () =>
          Effect.map(extractFixture(entry), (doc) => {
            for (const token of entry.recoverable_tokens ?? []) expect(collapse(doc.text)).toContain(token)
          })
        )
        continue
      }
      const expected = entry.expected_error
      if (expected === undefined) throw new Error(`${entry.path} has no expected_error`)
      // Damaged audio, video and images are the media probes' concern; to the extractor they
      // are simply not documents.
      const isMedia = /^(audio|video|image)\//.test(entry.mime)
      const code = expected === "corrupt" && isMedia ? codeForClass.unsupported : codeForClass[expected]
      it.effect(`rejects ${entry.path} with ${code}`, () => expectRejection(extractFixture(entry), fixtureName(entry), code))
    }

    it.effect("names the encryption as the reason for an encrypted PDF", () =>
      Effect.map(expectRejection(extractFixture(fixture("bad/encrypted.pdf")), "encrypted.pdf", "file_unsupported"), (message) =>
        expect(message).toMatch(/encrypted/)
      )
    )

    it.effect("says what the content really is for a mislabelled file", () =>
      Effect.map(expectRejection(extractFixture(fixture("bad/png-as.pdf")), "png-as.pdf", "file_type_mismatch"), (message) =>
        expect(message).toBe("png-as.pdf: the content is a PNG image, not a PDF")
      )
    )

    it.effect("refuses a password-protected Office 2007+ file (an encrypted OLE container)", () => {
      const container = CFB.utils.cfb_new()
      CFB.utils.cfb_add(container, "EncryptionInfo", Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]))
      CFB.utils.cfb_add(container, "EncryptedPackage", Buffer.alloc(64, 7))
      const written: unknown = CFB.write(container, { fileType: "cfb", type: "buffer" })
      if (!(written instanceof Uint8Array)) throw new Error("cfb did not write a buffer")
      const extract = Effect.flatMap(Extractor, (x) => x.extract({ bytes: written, filename: "budget.xlsx" }))
      return Effect.map(expectRejection(extract, "budget.xlsx", "file_unsupported"), (message) => expect(message).toMatch(/encrypted/))
    })
  })

  describe("detection order", () => {
    it.effect("sniffed content beats a lying extension", () =>
      Effect.gen(function* () {
        const docx = fixture("documents/report.docx")
        const doc = yield* (yield* Extractor).extract({ bytes: fixtureBytes(docx), filename: "report.pdf", mimeType: "application/pdf" })
        expect(doc.format).toBe("docx")
        for (const token of docx.expected_tokens ?? []) expect(collapse(doc.text)).toContain(token)
      })
    )

    it.effect("the extension decides for plain text, and the declared type only when there is no extension", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const bytes = fixtureBytes("documents/readme.md")
        const asCsv = yield* extractor.extract({ bytes, filename: "notes.csv", mimeType: "application/json" })
        const bare = yield* extractor.extract({ bytes, filename: "notes", mimeType: "text/markdown" })
        const nothing = yield* extractor.extract({ bytes, filename: "notes" })
        expect([asCsv.mimeType, bare.mimeType, nothing.mimeType]).toEqual(["text/csv", "text/markdown", "text/plain"])
        expect(asCsv.format).toBe("text")
      })
    )
  })

  describe("Apple iWork bundles", () => {
    it.effect("reads the QuickLook PDF preview of a Pages bundle", () =>
      Effect.gen(function* () {
        const pdf = fixture("documents/report.pdf")
        const bytes = zipBundle({ "Index/Document.iwa": new Uint8Array(16), "QuickLook/Preview.pdf": fixtureBytes(pdf) })
        const doc = yield* (yield* Extractor).extract({ bytes, filename: "report.pages" })
        expect(doc.format).toBe("pages")
        expect(doc.mimeType).toBe("application/vnd.apple.pages")
        for (const token of pdf.expected_tokens ?? []) expect(collapse(doc.text)).toContain(token)
      })
    )

    it.effect("reads the XML index of an iWork '09 Keynote bundle, found by its declared type", () =>
      Effect.gen(function* () {
        const xml = `<?xml version="1.0"?><key:presentation><sf:p>Quarterly &amp; yearly</sf:p><sf:p>Ledger 42</sf:p></key:presentation>`
        const doc = yield* (yield* Extractor).extract({
          bytes: zipBundle({ "index.apxl": xml }),
          filename: "deck",
          mimeType: "application/vnd.apple.keynote"
        })
        expect(doc.format).toBe("key")
        expect(doc.text).toBe("Quarterly & yearly\nLedger 42")
      })
    )

    it.effect("refuses a newer bundle without a preview, with advice", () =>
      Effect.map(
        expectRejection(
          Effect.flatMap(Extractor, (x) => x.extract({ bytes: zipBundle({ "Index/Document.iwa": new Uint8Array(16) }), filename: "sums.numbers" })),
          "sums.numbers",
          "file_unsupported"
        ),
        (message) => expect(message).toMatch(/export it/)
      )
    )

    it.effect("a ZIP without any bundle part is a damaged file", () =>
      expectRejection(
        Effect.flatMap(Extractor, (x) => x.extract({ bytes: zipBundle({ "hello.txt": "hi" }), filename: "talk.key" })),
        "talk.key",
        "file_corrupt"
      )
    )
  })

  describe("renderPdfPages", () => {
    it.effect("renders the first pages of multipage.pdf as PNG, capped by max_rendered_pages", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const multipage = fixture("documents/multipage.pdf")
        const bytes = fixtureBytes(multipage)
        const images = yield* extractor.renderPdfPages({ bytes, filename: "multipage.pdf", maxPages: 10 })
        expect(images.length).toBe(Math.min(maxRenderedPages, multipage.pages ?? 0))
        for (const png of images) {
          expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
          expect(png.length).toBeGreaterThan(5_000)
          expect(png.length).toBeLessThan(5_000_000)
          const { width, height } = pngSize(png)
          // A4 portrait, drawn with its long side at about 1568 px.
          expect(height).toBeGreaterThan(1500)
          expect(width / height).toBeCloseTo(595 / 842, 2)
        }
        const one = yield* extractor.renderPdfPages({ bytes, filename: "multipage.pdf", maxPages: 1 })
        expect(one.length).toBe(1)
        // The caller's buffer was copied, not handed over.
        expect(bytes.length).toBe(multipage.size_bytes)
      })
    )

    it.effect("refuses what is not a PDF", () =>
      Effect.gen(function* () {
        const render = (path: string) =>
          Effect.flatMap(Extractor, (x) => x.renderPdfPages({ bytes: fixtureBytes(path), filename: fixtureName(path), maxPages: 2 }))
        yield* expectRejection(render("documents/report.docx"), "report.docx", "file_unsupported")
        yield* expectRejection(render("bad/png-as.pdf"), "png-as.pdf", "file_type_mismatch")
        yield* expectRejection(render("bad/encrypted.pdf"), "encrypted.pdf", "file_unsupported")
        yield* expectRejection(render("bad/truncated.pdf"), "truncated.pdf", "file_corrupt")
      })
    )
  })
})
