import { describe, expect, it } from "@effect/vitest"
import CFB from "cfb"
import { type Detection, detectFormat } from "../../../../src/Services/Files/Extraction/DetectFormat.ts"
import { fixtureBytes } from "./FixtureManifest.ts"

const detect = (bytes: Uint8Array, filename: string, mimeType?: string) => detectFormat({ bytes, filename, mimeType })

const summary = (detection: Detection) => {
  switch (detection._tag) {
    case "Text":
      return `text ${detection.mimeType}`
    case "Binary":
      return `binary ${detection.format}`
    case "Rejected":
      return `rejected ${detection.failure.kind}`
  }
}

const text = (s: string) => new TextEncoder().encode(s)

describe("detectFormat", () => {
  describe("1. sniffed content", () => {
    it("beats a lying extension and a lying declared type", async () => {
      expect(summary(await detect(fixtureBytes("documents/report.docx"), "report.pdf", "application/pdf"))).toBe("binary docx")
      expect(summary(await detect(fixtureBytes("documents/report.pdf"), "report.docx"))).toBe("binary pdf")
      expect(summary(await detect(fixtureBytes("documents/sheet.ods"), "sheet.xlsx"))).toBe("binary ods")
    })

    it("sends every OLE compound file to the OLE reader, whatever its name", async () => {
      for (const [path, name] of [
        ["documents/report.doc", "report.doc"],
        ["documents/sheet.xls", "report.doc"],
        ["documents/slides.ppt", "slides"]
      ] as const) {
        expect(summary(await detect(fixtureBytes(path), name))).toBe("binary ole")
      }
    })

    it("calls a clearly different content type a mismatch, and a non-document named as itself unsupported", async () => {
      expect(summary(await detect(fixtureBytes("bad/png-as.pdf"), "png-as.pdf"))).toBe("rejected mismatch")
      expect(summary(await detect(fixtureBytes("bad/png-as.pdf"), "picture.png"))).toBe("rejected unsupported")
      expect(summary(await detect(fixtureBytes("bad/png-as.pdf"), "picture"))).toBe("rejected unsupported")
      expect(summary(await detect(fixtureBytes("bad/png-as.pdf"), "upload", "application/pdf"))).toBe("rejected mismatch")
    })
  })

  describe("2. the extension", () => {
    it("decides the type of plain text", async () => {
      const bytes = fixtureBytes("documents/readme.md")
      expect(summary(await detect(bytes, "readme.md"))).toBe("text text/markdown")
      expect(summary(await detect(bytes, "readme.csv"))).toBe("text text/csv")
      expect(summary(await detect(bytes, "readme.ts"))).toBe("text text/x-typescript")
      expect(summary(await detect(bytes, "Dockerfile"))).toBe("text text/x-source")
    })

    it("outranks a binary signature that plain text happens to start with", async () => {
      // "BM" opens every BMP image; this is a note about a car.
      expect(summary(await detect(text("BMW service notes: oil changed at 42,000 km.\n"), "car.txt"))).toBe("text text/plain")
    })

    it("makes text named as a binary document a mismatch", async () => {
      expect(summary(await detect(fixtureBytes("documents/notes.txt"), "notes.pdf"))).toBe("rejected mismatch")
    })

    it("decides between iWork applications, which the sniffer only guesses", async () => {
      const bundle = CFB.utils.cfb_new()
      CFB.utils.cfb_add(bundle, "Index/Document.iwa", Buffer.alloc(16))
      const zip: unknown = CFB.write(bundle, { fileType: "zip", type: "buffer" })
      if (!(zip instanceof Uint8Array)) throw new Error("cfb did not write a buffer")
      expect(summary(await detect(zip, "sums.numbers"))).toBe("binary numbers")
      expect(summary(await detect(zip, "talk.key"))).toBe("binary key")
    })

    it("sends a plain ZIP named as an Office file to that reader, which reports it damaged", async () => {
      expect(summary(await detect(fixtureBytes("bad/zip-renamed.docx"), "zip-renamed.docx"))).toBe("binary docx")
      expect(summary(await detect(fixtureBytes("bad/zip-renamed.docx"), "archive.zip"))).toBe("rejected unsupported")
      expect(summary(await detect(fixtureBytes("bad/zip-renamed.docx"), "archive.pdf"))).toBe("rejected mismatch")
    })
  })

  describe("3. the declared type", () => {
    it("is used only when the extension is missing or unknown", async () => {
      const bytes = fixtureBytes("documents/readme.md")
      expect(summary(await detect(bytes, "notes", "text/markdown"))).toBe("text text/markdown")
      expect(summary(await detect(bytes, "notes.weird", "application/json; charset=utf-8"))).toBe("text application/json")
      expect(summary(await detect(bytes, "notes.md", "application/json"))).toBe("text text/markdown")
      expect(summary(await detect(bytes, "notes"))).toBe("text text/plain")
      // A conventional bare name is as good as an extension.
      expect(summary(await detect(bytes, "README", "text/markdown"))).toBe("text text/plain")
    })

    it("picks the reader for a ZIP bundle that has no telling name", async () => {
      const bundle = CFB.utils.cfb_new()
      CFB.utils.cfb_add(bundle, "index.xml", Buffer.from("<sl:document/>"))
      const zip: unknown = CFB.write(bundle, { fileType: "zip", type: "buffer" })
      if (!(zip instanceof Uint8Array)) throw new Error("cfb did not write a buffer")
      expect(summary(await detect(zip, "upload", "application/vnd.apple.pages"))).toBe("binary pages")
      expect(summary(await detect(zip, "upload"))).toBe("rejected unsupported")
    })
  })

  describe("content no reader recognises", () => {
    it("is empty, damaged, or unsupported depending on what it claims", async () => {
      const random = fixtureBytes("bad/random.wav")
      expect(summary(await detect(new Uint8Array(0), "report.pdf"))).toBe("rejected empty")
      expect(summary(await detect(random, "report.pdf"))).toBe("rejected corrupt")
      expect(summary(await detect(random, "notes.txt"))).toBe("rejected mismatch")
      expect(summary(await detect(random, "noise.wav"))).toBe("rejected unsupported")
      expect(summary(await detect(random, "noise"))).toBe("rejected unsupported")
    })
  })
})
