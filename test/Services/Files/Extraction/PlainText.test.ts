import { describe, expect, it } from "@effect/vitest"
import { decodeText } from "../../../../src/Services/Files/Extraction/PlainText.ts"
import { collapse, fixture, fixtureBytes } from "./FixtureManifest.ts"

const utf16be = (s: string): Uint8Array => {
  const out = new Uint8Array(2 + s.length * 2)
  out.set([0xfe, 0xff])
  for (let i = 0; i < s.length; i++) {
    out[2 + 2 * i] = s.charCodeAt(i) >> 8
    out[3 + 2 * i] = s.charCodeAt(i) & 0xff
  }
  return out
}

describe("decodeText", () => {
  it("reads UTF-16 LE with a BOM and CRLF line ends", () => {
    const entry = fixture("documents/notes-utf16le.txt")
    const decoded = decodeText(fixtureBytes(entry)) ?? ""
    for (const token of entry.expected_tokens ?? []) expect(collapse(decoded)).toContain(token)
    expect(decoded.charCodeAt(0)).not.toBe(0xfeff)
  })

  it("reads UTF-16 BE and UTF-8 with a BOM, dropping the mark", () => {
    expect(decodeText(utf16be("façade 2648"))).toBe("façade 2648")
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toBe("hi")
  })

  it("falls back to Windows-1252 for bytes that are not UTF-8", () => {
    // "café €5" in Windows-1252
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x35]))).toBe("café €5")
  })

  it("refuses binary data", () => {
    expect(decodeText(fixtureBytes("bad/random.wav"))).toBeUndefined()
    expect(decodeText(fixtureBytes("documents/report.pdf"))).toBeUndefined()
    expect(decodeText(new Uint8Array([0x68, 0x00, 0x69]))).toBeUndefined()
  })
})
