import * as Schema from "effect/Schema"

/** Every document family the extractor reads; `text` covers all text-based files (code, config, markup, data). */
export const DocumentFormat = Schema.Literals([
  "pdf",
  "docx",
  "doc",
  "odt",
  "rtf",
  "pptx",
  "ppt",
  "odp",
  "xlsx",
  "xls",
  "ods",
  "pages",
  "key",
  "numbers",
  "text"
])
export type DocumentFormat = typeof DocumentFormat.Type

/** What extraction learns from the bytes alone, so it can be cached per content hash. */
export const ExtractedContent = Schema.Struct({
  format: DocumentFormat,
  /** The detected type, e.g. `application/pdf`, `text/markdown`; a text file keeps the type its name implies. */
  mimeType: Schema.String,
  /**
   * Everything a model should read. Paged documents (PDF pages, presentation slides) and
   * spreadsheets introduce each page, slide or sheet with a `--- Page N ---` style line.
   */
  text: Schema.String,
  /** PDF pages or presentation slides; null for formats without pages. */
  pages: Schema.NullOr(Schema.Int),
  /** The text of each page or slide, in order, without the separator lines; null when `pages` is null. */
  pageTexts: Schema.NullOr(Schema.Array(Schema.String)),
  /** True when some PDF page has no text layer but shows an image: it needs a vision model (or OCR). */
  scanned: Schema.Boolean,
  /** 1-based numbers of those image-only pages. */
  scannedPages: Schema.Array(Schema.Int)
})
export type ExtractedContent = typeof ExtractedContent.Type

export const ExtractedDocument = Schema.Struct({
  ...ExtractedContent.fields,
  /** True when the result came from the shared extraction cache instead of parsing the bytes now. */
  cached: Schema.Boolean
})
export type ExtractedDocument = typeof ExtractedDocument.Type
