import mammoth from "mammoth"
import { type OfficeContentNode, OfficeParser, type OfficeParserConfig } from "officeparser"
import WordExtractor from "word-extractor"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { documentTypes } from "./DocumentTypes.ts"
import { markupTokens } from "./MarkupTokens.ts"
import type { ExtractionLimits } from "./ExtractionLimits.ts"
import { ExtractionFailure, fail, guard } from "./ExtractionFailure.ts"
import { guardedZip } from "./GuardedZip.ts"
import { pagedText, tidy } from "./PagedText.ts"
import { unescapeXml } from "./UnescapeXml.ts"

type WordFormat = "docx" | "doc" | "odt" | "rtf"
type SlideFormat = "pptx" | "odp"

const parserConfig = (fileType: "odt" | "rtf" | "pptx" | "odp" | "xlsx" | "ods"): OfficeParserConfig => ({
  fileType,
  ocr: false,
  extractAttachments: false,
  includeRawContent: false,
  ignoreComments: true,
  ignorePageGeometry: true,
  // The guarded reader has already bounded what the archive inflates to; these bound what the
  // parser builds from it (a cell repeated a million times inflates to nothing).
  decompressionLimits: { maxUncompressedBytes: 256 * 1024 * 1024, maxZipEntries: 5_000, maxTableCells: 500_000 },
  onWarning: () => undefined
})

/** officeparser reports a structured issue code; an encrypted file is unsupported, anything else damaged. */
export const parseOffice = async (fileType: "odt" | "rtf" | "pptx" | "odp" | "xlsx" | "ods", bytes: Uint8Array, limits: ExtractionLimits) => {
  const name = documentTypes[fileType].name
  // Zipped formats reach the parser only as the guarded reader inflated them (stored parts).
  const input = documentTypes[fileType].zipped ? guardedZip(bytes, limits.zip, name) : bytes
  try {
    return await OfficeParser.parseOffice(Buffer.from(input.buffer, input.byteOffset, input.byteLength), parserConfig(fileType))
  } catch (cause) {
    const code: unknown =
      typeof cause === "object" && cause !== null && "officeIssue" in cause
        ? (cause.officeIssue as { readonly code?: unknown } | undefined)?.code
        : undefined
    if (code === "PASSWORD_REQUIRED" || code === "DOCUMENT_DECRYPTION_FAILED") {
      return fail("unsupported", `the ${name} is encrypted (password-protected); remove the password and upload it again`)
    }
    if (code === "ZIP_SIZE_LIMIT_EXCEEDED" || code === "ZIP_ENTRY_COUNT_LIMIT_EXCEEDED" || code === "XML_ELEMENT_LIMIT_EXCEEDED") {
      return fail("too_complex", `the ${name} expands to more data than the extraction limits allow`)
    }
    throw new ExtractionFailure(
      "corrupt",
      `the ${name} could not be read; it is damaged or not a valid ${name}`,
      cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
    )
  }
}

/** Text of one content node: tables as ` | `-separated rows, other blocks one per line. */
const blockText = (node: OfficeContentNode): string => {
  const children = node.children ?? []
  if (node.type === "table") {
    return children.map((row) => (row.children ?? []).map((cell) => blockText(cell).replace(/\n/g, " ")).join(" | ")).join("\n")
  }
  if (node.type === "paragraph" || node.type === "heading" || node.type === "text" || node.type === "code") {
    return node.text ?? children.map(blockText).join("")
  }
  if (children.length > 0) return children.map(blockText).filter((t) => t.trim() !== "").join("\n")
  return node.text ?? ""
}

/** Mammoth's HTML without images: the only markup it writes is headings, paragraphs, lists, tables, links and emphasis. */
const noImages = mammoth.images.imgElement(() => Promise.resolve({ src: "" }))
const lineEnders = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "table", "ul", "ol"])

/**
 * Turns mammoth's HTML into lines: a paragraph or heading per line, a table row per line with
 * its cells separated by ` | ` (a cell's own paragraphs joined by spaces).
 */
const mammothHtmlText = (html: string): string => {
  const lines: Array<string> = []
  let line = ""
  let row: Array<string> = []
  let cellDepth = 0
  const endLine = () => {
    lines.push(line)
    line = ""
  }
  for (const token of markupTokens(html)) {
    if (token._tag === "Text") {
      line += unescapeXml(token.text)
      continue
    }
    const { name: tag, closing } = token
    if (tag === "td" || tag === "th") {
      cellDepth += closing ? -1 : 1
      if (closing && cellDepth === 0) {
        row.push(line.replace(/\s+/g, " ").trim())
        line = ""
      } else if (closing) line += " | "
    } else if (tag === "tr" && closing && cellDepth === 0) {
      lines.push(row.join(" | "))
      row = []
    } else if (tag === "br" || (closing && lineEnders.has(tag))) {
      if (cellDepth > 0) line += " "
      else if (line !== "") endLine()
    }
  }
  if (line !== "") endLine()
  return lines.join("\n")
}

const wordText = async (format: WordFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<string> => {
  switch (format) {
    case "docx": {
      const stored = guardedZip(bytes, limits.zip, "DOCX")
      const result = await guard("DOCX", () => mammoth.convertToHtml({ buffer: Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength) }, { convertImage: noImages }))
      return mammothHtmlText(result.value)
    }
    case "doc": {
      const doc = await guard("DOC", () => new WordExtractor().extract(Buffer.from(bytes)))
      const keep = { filterUnicode: false }
      return [
        doc.getBody(keep),
        doc.getTextboxes({ ...keep, includeHeadersAndFooters: false }),
        doc.getFootnotes(keep),
        doc.getEndnotes(keep)
      ].join("\n\n")
    }
    case "odt":
    case "rtf": {
      const ast = await parseOffice(format, bytes, limits)
      return ast.content.map(blockText).join("\n")
    }
  }
}

/** Word-processing documents: DOCX (mammoth), DOC (word-extractor), ODT and RTF (officeparser). */
const wordDocumentText = async (format: WordFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> => ({
  format,
  mimeType: documentTypes[format].mimeType,
  text: tidy(await wordText(format, bytes, limits)),
  pages: null,
  pageTexts: null,
  scanned: false,
  scannedPages: []
})

/** Presentations: one page per slide, the slide title (its heading placeholder) on the first line. */
const slidesText = async (format: SlideFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> => {
  const ast = await parseOffice(format, bytes, limits)
  const slides = ast.content.filter((node) => node.type === "slide")
  const pageTexts = slides.map((slide) => {
    const blocks = slide.children ?? []
    const title = blocks.find((b) => b.type === "heading")
    const ordered = title === undefined ? blocks : [title, ...blocks.filter((b) => b !== title)]
    return tidy(ordered.map(blockText).join("\n"))
  })
  return {
    format,
    mimeType: documentTypes[format].mimeType,
    text: pagedText("Slide", pageTexts),
    pages: pageTexts.length,
    pageTexts,
    scanned: false,
    scannedPages: []
  }
}

/** Word-processing documents and PPTX/ODP presentations. */
export const officeText = (format: WordFormat | SlideFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> =>
  format === "pptx" || format === "odp" ? slidesText(format, bytes, limits) : wordDocumentText(format, bytes, limits)
