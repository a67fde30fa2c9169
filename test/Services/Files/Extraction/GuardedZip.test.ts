import { describe, expect, it } from "@effect/vitest"
import { crc32, deflateRawSync } from "node:zlib"
import { ExtractionFailure } from "../../../../src/Services/Files/Extraction/ExtractionFailure.ts"
import { guardedZip, unzipGuarded, type ZipLimits } from "../../../../src/Services/Files/Extraction/GuardedZip.ts"
import { storedEntry, type WrittenEntry, writeZip } from "../../../../src/Services/Files/Extraction/ZipWriter.ts"
import { repeatedDeflate } from "../../../support/HostileFixtures.ts"

const mib = 1024 * 1024
const limits: ZipLimits = { maxBytes: 8 * mib, maxRatio: 100, maxEntries: 50 }
const text = (value: string) => new TextEncoder().encode(value)
const deflated = (name: string, content: Uint8Array): WrittenEntry => ({ name, method: 8, data: deflateRawSync(content), crc: crc32(content), size: content.length })

const failure = (run: () => unknown): ExtractionFailure => {
  try {
    run()
  } catch (cause) {
    if (cause instanceof ExtractionFailure) return cause
    throw cause
  }
  throw new Error("expected an ExtractionFailure")
}

describe("the guarded ZIP reader", () => {
  it("inflates text parts, keeps pictures by name only, and rewrites the archive stored", () => {
    const xml = text(`<doc>${"<p>hello</p>".repeat(1_000)}</doc>`)
    const zip = writeZip([deflated("word/document.xml", xml), deflated("word/media/image1.png", new Uint8Array(5_000).fill(7))])
    const parts = unzipGuarded(zip, limits, "DOCX")
    expect(parts.map((p) => [p.name, p.bytes.length])).toEqual([["word/document.xml", xml.length], ["word/media/image1.png", 0]])
    const stored = unzipGuarded(guardedZip(zip, limits, "DOCX"), { ...limits, maxRatio: 1 }, "DOCX")
    expect(new TextDecoder().decode(stored[0]!.bytes)).toBe(new TextDecoder().decode(xml))
  })

  it("stops at the running byte cap over all parts, naming the setting", () => {
    const part = (i: number) => deflated(`xl/worksheets/sheet${i}.xml`, text(`<x>${"abcdefgh".repeat((3 * mib) / 8)}</x>`))
    const zip = writeZip([1, 2, 3, 4].map(part))
    expect(failure(() => unzipGuarded(zip, { ...limits, maxRatio: 10_000 }, "XLSX")).info).toEqual({
      kind: "too_complex",
      reason: "the XLSX expands to more than 8 MB (files.extraction.max_unzipped_mb)"
    })
  })

  it("stops a part inflating more than the ratio allows past its first MiB", () => {
    const bomb = repeatedDeflate(text("<a>"), text(" ".repeat(mib)), 4, text("</a>"))
    const zip = writeZip([{ name: "content.xml", method: 8, ...bomb }])
    expect(failure(() => unzipGuarded(zip, limits, "ODT")).info.reason).toMatch(/content\.xml.*more than 100 times.*max_zip_ratio/)
  })

  it("refuses encrypted, damaged and over-long archives, and reads a duplicated name once", () => {
    const zip = writeZip([storedEntry("a.xml", text("<a/>"))])
    const encrypted = new Uint8Array(zip)
    const central = Buffer.from(encrypted).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    encrypted[central + 8] = encrypted[central + 8]! | 1
    expect(failure(() => unzipGuarded(encrypted, limits, "DOCX")).info.kind).toBe("unsupported")
    expect(failure(() => unzipGuarded(zip.subarray(0, zip.length - 30), limits, "DOCX")).info.kind).toBe("corrupt")
    const many = writeZip(Array.from({ length: 51 }, (_, i) => storedEntry(`p${i}.xml`, text("<a/>"))))
    expect(failure(() => unzipGuarded(many, limits, "PPTX")).info.reason).toContain("51 parts")
    const twice = writeZip([storedEntry("a.xml", text("<first/>")), storedEntry("a.xml", text("<second/>"))])
    expect(unzipGuarded(twice, limits, "DOCX").map((p) => new TextDecoder().decode(p.bytes))).toEqual(["<first/>"])
  })
})
