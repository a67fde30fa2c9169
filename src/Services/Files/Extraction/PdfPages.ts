import { renderPageAsImage } from "unpdf"
import { ExtractionFailure } from "./ExtractionFailure.ts"
import { openPdf } from "./PdfText.ts"

/** Longest side of a rendered page in pixels: enough to read body text, within common vision-model limits. */
const targetLongSide = 1568
const maxScale = 4

/** PNG images of the first `maxPages` pages, for vision models. */
export const renderPdfPages = async (bytes: Uint8Array, maxPages: number): Promise<Array<Uint8Array>> => {
  const pdf = await openPdf(bytes)
  try {
    const images: Array<Uint8Array> = []
    for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
      const page = await pdf.getPage(n)
      const { width, height } = page.getViewport({ scale: 1 })
      page.cleanup()
      const scale = Math.min(maxScale, targetLongSide / Math.max(width, height, 1))
      const png = await renderPageAsImage(pdf, n, { canvasImport: () => import("@napi-rs/canvas"), scale }).catch(
        (cause: unknown) => {
          throw new ExtractionFailure("corrupt", `page ${n} of the PDF cannot be drawn; the file is damaged`, String(cause))
        }
      )
      images.push(new Uint8Array(png))
    }
    return images
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined)
  }
}
