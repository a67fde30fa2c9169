import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { documentTypes } from "./DocumentTypes.ts"
import type { ExtractionLimits } from "./ExtractionLimits.ts"
import { fail } from "./ExtractionFailure.ts"
import { unzipGuarded } from "./GuardedZip.ts"
import { attributeOf, markupTokens } from "./MarkupTokens.ts"
import { tidy } from "./PagedText.ts"
import { pdfText } from "./PdfText.ts"
import { unescapeXml } from "./UnescapeXml.ts"

type IworkFormat = "pages" | "key" | "numbers"

/** The XML files of iWork '09 bundles, which hold the whole text. */
const xmlIndexes = ["index.xml", "index.apxl"]
/** iWork 2013+ keeps its content in IWA (snappy-compressed protobuf) files no library reads. */
const iwaMarkers = ["Index/Document.iwa", "Index.zip"]

const lineBreaks = new Set(["sf:br", "sf:lnbr", "sf:pgbr", "sf:crbr", "sf:intratopicbr"])
const blockEnds = new Set(["sf:p", "sf:li", "sf:cell"])

/**
 * Text of an iWork '09 XML index: paragraph and line-break elements become newlines, table
 * cell strings (kept in `sfa:s` attributes) their own lines, every other tag is dropped.
 */
const xmlIndexText = (xml: string): string => {
  const out: Array<string> = []
  for (const token of markupTokens(xml)) {
    if (token._tag === "Text") out.push(token.text)
    else if (token.closing) {
      if (blockEnds.has(token.name)) out.push("\n")
    } else if (token.name === "sf:ct") {
      const cell = attributeOf(token.inside, "sfa:s")
      if (cell !== undefined) out.push(`\n${cell}\n`)
    } else if (token.selfClosing && lineBreaks.has(token.name)) out.push("\n")
  }
  return unescapeXml(out.join(""))
}

/**
 * Apple Pages, Keynote and Numbers files are ZIP bundles. What they expose is read: the XML
 * index of iWork '09, else the QuickLook PDF preview newer versions may embed (through the
 * PDF reader; it can be only the first page). A bundle with neither is refused with advice.
 */
export const iworkText = async (format: IworkFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> => {
  const type = documentTypes[format]
  const parts = unzipGuarded(bytes, limits.zip, type.name)
  const find = (name: string) => parts.find((part) => part.name === name || part.name.endsWith(`/${name}`))

  const index = xmlIndexes.map(find).find((e) => e !== undefined)
  if (index !== undefined) {
    const xml = new TextDecoder("utf-8").decode(index.bytes)
    return { format, mimeType: type.mimeType, text: tidy(xmlIndexText(xml)), pages: null, pageTexts: null, scanned: false, scannedPages: [] }
  }
  const preview = find("QuickLook/Preview.pdf")
  if (preview !== undefined) {
    const fromPdf = await pdfText(preview.bytes, limits.maxPages)
    return { ...fromPdf, format, mimeType: type.mimeType }
  }
  if (iwaMarkers.some((name) => find(name) !== undefined)) {
    return fail(
      "unsupported",
      `the ${type.name} uses Apple's newer storage format and carries no PDF preview, so its text cannot be read; export it from ${type.name.split(" ")[0]} as PDF or an Office format and upload that`
    )
  }
  return fail("corrupt", `the content is a ZIP archive without the parts of ${type.label}`)
}
