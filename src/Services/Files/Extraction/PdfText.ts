import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { ExtractionFailure, fail } from "./ExtractionFailure.ts"
import { pagedText, tidy } from "./PagedText.ts"

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>

/**
 * Opens a PDF with pdf.js. Damaged cross-reference data is repaired, not rejected: pdf.js
 * rebuilds the table by scanning the objects, as Poppler and every common viewer do, so a file
 * like the corpus's `broken-xref.pdf` yields exactly the text its author wrote. Rejecting it
 * would refuse documents users open every day. Only a file from which no page can be rebuilt
 * (a truncated body, random bytes) is reported as damaged.
 */
export const openPdf = async (bytes: Uint8Array): Promise<PdfDocument> => {
  const pdfjs = await getResolvedPDFJS()
  try {
    // pdf.js may take ownership of the buffer it is given, so it gets its own copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: pdfjs.VerbosityLevel.ERRORS,
      stopAtErrors: false,
      // Bounds the decoded size of one embedded image (pixels).
      maxImageSize: 64 * 1024 * 1024
    })
    if (pdf.numPages < 1) return fail("corrupt", "the PDF has no pages")
    return pdf
  } catch (cause) {
    if (cause instanceof ExtractionFailure) throw cause
    if (cause instanceof pdfjs.PasswordException) {
      return fail("unsupported", "the PDF is encrypted (password-protected); remove the password and upload it again")
    }
    throw new ExtractionFailure(
      "corrupt",
      "the PDF is damaged and cannot be read (its structure is broken or it is cut short)",
      cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
    )
  }
}

/**
 * Whether a page without text shows an image: that is a scan (or a photo of text) and needs a
 * vision model or OCR. Pages with neither text nor images are blank, or are vector drawings.
 */
const paintsImage = async (pdf: PdfDocument, pageNumber: number): Promise<boolean> => {
  const { OPS } = await getResolvedPDFJS()
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintImageXObjectRepeat,
    OPS.paintInlineImageXObject,
    OPS.paintInlineImageXObjectGroup,
    OPS.paintImageMaskXObject,
    OPS.paintImageMaskXObjectGroup,
    OPS.paintImageMaskXObjectRepeat
  ])
  const page = await pdf.getPage(pageNumber)
  const operators = await page.getOperatorList()
  page.cleanup()
  return operators.fnArray.some((op) => imageOps.has(op))
}

export const pdfText = async (bytes: Uint8Array, maxPages: number): Promise<ExtractedContent> => {
  const pdf = await openPdf(bytes)
  try {
    // The page count is what the file declares: 100,000 pages cost 100,000 page reads.
    if (pdf.numPages > maxPages) {
      fail("too_complex", `the PDF has ${pdf.numPages.toLocaleString("en-US")} pages; extraction reads at most ${maxPages.toLocaleString("en-US")} (files.extraction.max_pages)`)
    }
    const { totalPages, text } = await extractText(pdf, { mergePages: false }).catch((cause: unknown) => {
      throw new ExtractionFailure("corrupt", "the PDF is damaged and its pages cannot be read", String(cause))
    })
    const pageTexts = text.map(tidy)
    const scannedPages: Array<number> = []
    for (const [i, pageText] of pageTexts.entries()) {
      if (pageText === "" && (await paintsImage(pdf, i + 1).catch(() => false))) scannedPages.push(i + 1)
    }
    return {
      format: "pdf",
      mimeType: "application/pdf",
      text: pagedText("Page", pageTexts, scannedPages),
      pages: totalPages,
      pageTexts,
      scanned: scannedPages.length > 0,
      scannedPages
    }
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined)
  }
}
