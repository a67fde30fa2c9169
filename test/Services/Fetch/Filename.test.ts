import { describe, expect, it } from "@effect/vitest"
import {
  filenameFromContentDisposition,
  filenameFromUrl,
  filenameOf
} from "../../../src/Services/Fetch/Filename.ts"

describe("Filename", () => {
  it.each([
    ['attachment; filename="report.pdf"', "report.pdf"],
    ["attachment; filename=report.pdf", "report.pdf"],
    ['inline; filename="quarterly report.pdf"; size=123', "quarterly report.pdf"],
    ['attachment; filename="say \\"hi\\".txt"', 'say "hi".txt'],
    ["attachment; filename*=UTF-8''Z%C3%BCrich%20caf%C3%A9.docx", "Zürich café.docx"],
    ["attachment; filename*=iso-8859-1'en'caf%E9.txt", "café.txt"],
    // filename* wins over filename, whatever the order
    [`attachment; filename="fallback.pdf"; filename*=UTF-8''real.pdf`, "real.pdf"],
    [`attachment; filename*=UTF-8''real.pdf; filename="fallback.pdf"`, "real.pdf"],
    // an undecodable filename* falls back to filename
    [`attachment; filename*=UTF-8''bad%E9; filename="ok.pdf"`, "ok.pdf"],
    // paths are reduced to their last segment
    ['attachment; filename="../../etc/passwd"', "passwd"],
    ['attachment; filename="C:\\\\Windows\\\\win.ini"', "win.ini"],
    ['attachment; filename=".."', null],
    ["attachment", null],
    ["inline; name=x", null]
  ] as const)("%s -> %s", (header, expected) => {
    expect(filenameFromContentDisposition(header)).toBe(expected)
  })

  it("names from the URL path", () => {
    expect(filenameFromUrl(new URL("https://example.com/docs/report.pdf?download=1"))).toBe("report.pdf")
    expect(filenameFromUrl(new URL("https://example.com/a/Z%C3%BCrich%20notes.txt"))).toBe("Zürich notes.txt")
    expect(filenameFromUrl(new URL("https://example.com/a/100%25-off.txt"))).toBe("100%-off.txt")
    expect(filenameFromUrl(new URL("https://example.com/a/bad%E9.txt"))).toBe("bad%E9.txt")
    expect(filenameFromUrl(new URL("https://example.com/dir/"))).toBeNull()
    expect(filenameFromUrl(new URL("https://example.com"))).toBeNull()
    expect(filenameFromUrl(new URL("https://example.com/a/%2e%2e"))).toBeNull()
  })

  it("prefers Content-Disposition over the URL", () => {
    const url = new URL("https://example.com/download?id=7")
    expect(filenameOf('attachment; filename="a.csv"', url)).toBe("a.csv")
    expect(filenameOf(undefined, new URL("https://example.com/b.csv"))).toBe("b.csv")
    expect(filenameOf("attachment", new URL("https://example.com/b.csv"))).toBe("b.csv")
    expect(filenameOf(undefined, url)).toBe("download")
  })
})
