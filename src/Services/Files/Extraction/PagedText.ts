import { trimLineEnds } from "../../../Domain/TrimChars.ts"

/**
 * The `text` of a paged document: each page (or slide) introduced by a marker line, so a
 * model can cite "page 3" and sees where a page has nothing readable.
 */
export const pagedText = (
  unit: "Page" | "Slide",
  pageTexts: ReadonlyArray<string>,
  imageOnlyPages: ReadonlyArray<number> = []
): string =>
  pageTexts
    .map((text, i) => {
      const n = i + 1
      if (imageOnlyPages.includes(n)) return `--- ${unit} ${n} (scanned image, no text layer) ---`
      return text === "" ? `--- ${unit} ${n} (no text) ---` : `--- ${unit} ${n} ---\n${text}`
    })
    .join("\n\n")

/** Trims each line's end and collapses runs of blank lines, keeping the document's own line breaks. */
export const tidy = (text: string): string =>
  trimLineEnds(text.replace(/\u0000/g, "").replace(/\r\n?/g, "\n"), " \t\u00a0")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
