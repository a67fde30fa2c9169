import type { OfficeContentNode } from "officeparser"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { documentTypes } from "./DocumentTypes.ts"
import type { ExtractionLimits } from "./ExtractionLimits.ts"
import { guard } from "./ExtractionFailure.ts"
import { parseOffice } from "./OfficeText.ts"
import { type SheetCell, sheetTable } from "./SheetTable.ts"

type SheetFormat = "xlsx" | "xls" | "ods"

interface Sheet {
  readonly name: string
  readonly cells: ReadonlyArray<SheetCell>
}

/**
 * XLSX and ODS through officeparser, which walks the `<row>`/`<c>` elements (and ODF's repeat
 * counts, bounded) that exist rather than the range a sheet declares, over the guarded reader's
 * stored parts. Values are the text the file shows (cached formula results).
 */
const zippedSheets = async (format: "xlsx" | "ods", bytes: Uint8Array, limits: ExtractionLimits): Promise<ReadonlyArray<Sheet>> => {
  const ast = await parseOffice(format, bytes, limits)
  return ast.content
    .filter((node) => node.type === "sheet")
    .map((sheet, i) => {
      const cells: Array<SheetCell> = []
      const walk = (node: OfficeContentNode) => {
        if (node.type === "cell") {
          const at = node.metadata as { readonly row?: unknown; readonly col?: unknown } | undefined
          if (typeof at?.row === "number" && typeof at.col === "number") cells.push({ row: at.row, column: at.col, text: node.text ?? "" })
          return
        }
        for (const child of node.children ?? []) walk(child)
      }
      walk(sheet)
      const name = (sheet.metadata as { readonly sheetName?: unknown } | undefined)?.sheetName
      return { name: typeof name === "string" ? name : `Sheet${i + 1}`, cells }
    })
}

/**
 * Excel 97-2003 (BIFF) workbooks through SheetJS CE 0.20.3 (both 0.18.5 advisories fixed), in
 * dense mode so only the rows the file stores are walked, never the declared range.
 */
const legacySheets = async (bytes: Uint8Array): Promise<ReadonlyArray<Sheet>> => {
  const XLSX = await import("@e965/xlsx")
  const workbook = await guard("XLS", () =>
    XLSX.read(bytes, { type: "array", dense: true, cellFormula: false, cellHTML: false, cellText: true, cellStyles: false, bookVBA: false })
  )
  return workbook.SheetNames.map((name) => {
    const cells: Array<SheetCell> = []
    const rows = workbook.Sheets[name]?.["!data"] ?? []
    rows.forEach((row, r) => {
      row?.forEach((cell, c) => {
        if (cell !== undefined) cells.push({ row: r, column: c, text: XLSX.utils.format_cell(cell) })
      })
    })
    return { name, cells }
  })
}

/** Every sheet of an XLSX, XLS or ODS workbook, in order, each under a line naming it and its used range. */
export const spreadsheetText = async (format: SheetFormat, bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> => {
  const sheets = format === "xls" ? await legacySheets(bytes) : await zippedSheets(format, bytes, limits)
  const text = sheets.map((sheet, i) => {
    const table = sheetTable(sheet.cells)
    return `--- Sheet ${i + 1}: ${sheet.name}${table.range === undefined ? "" : ` (${table.range})`} ---\n${table.text}`
  })
  return {
    format,
    mimeType: documentTypes[format].mimeType,
    text: text.join("\n\n"),
    pages: null,
    pageTexts: null,
    scanned: false,
    scannedPages: []
  }
}
