import type { ZipLimits } from "./GuardedZip.ts"

/** What one document may cost a reader, whatever it declares (`files.extraction`). */
export interface ExtractionLimits {
  readonly zip: ZipLimits
  /** Pages (PDF) read at most; a document declaring more is refused. */
  readonly maxPages: number
}
