import * as XLSX from "xlsx"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { documentTypes } from "./DocumentTypes.ts"
import { guard } from "./ExtractionFailure.ts"

type SheetFormat = "xlsx" | "xls" | "ods"

const cellText = (cell: XLSX.CellObject | undefined): string =>
  cell === undefined ? "" : XLSX.utils.format_cell(cell).replace(/\r?\n/g, " ").replace(/\|/g, "\\|").trim()

/**
 * One sheet as a table a model can address: a header of column letters, then each non-empty
 * row led by its row number, so "D4" in a formula or a question points at a visible cell.
 * Values are the formatted text the file carries (cached formula results, number formats),
 * which is what LibreOffice or Excel shows.
 */
const sheetTable = (sheet: XLSX.WorkSheet): string => {
  const ref = sheet["!ref"]
  if (ref === undefined) return "(empty sheet)"
  const range = XLSX.utils.decode_range(ref)
  const columns: Array<number> = []
  for (let c = range.s.c; c <= range.e.c; c++) columns.push(c)
  const lines = [`| | ${columns.map((c) => XLSX.utils.encode_col(c)).join(" | ")} |`]
  for (let r = range.s.r; r <= range.e.r; r++) {
    const cells = columns.map((c) => cellText(sheet[XLSX.utils.encode_cell({ r, c })]))
    if (cells.some((v) => v !== "")) lines.push(`| ${XLSX.utils.encode_row(r)} | ${cells.join(" | ")} |`)
  }
  return lines.length === 1 ? "(empty sheet)" : lines.join("\n")
}

/** Every sheet of an XLSX, XLS or ODS workbook, in order, each under a line naming it. */
export const spreadsheetText = async (format: SheetFormat, bytes: Uint8Array): Promise<ExtractedContent> => {
  const name = documentTypes[format].name
  const workbook = await guard(name, () =>
    XLSX.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: "buffer", cellFormula: false, cellHTML: false, cellText: true, cellStyles: false, bookVBA: false })
  )
  const sheets = workbook.SheetNames.map((sheetName, i) => {
    const sheet = workbook.Sheets[sheetName]
    const ref = sheet?.["!ref"]
    const header = `--- Sheet ${i + 1}: ${sheetName}${ref === undefined ? "" : ` (${ref})`} ---`
    return `${header}\n${sheet === undefined ? "(empty sheet)" : sheetTable(sheet)}`
  })
  return {
    format,
    mimeType: documentTypes[format].mimeType,
    text: sheets.join("\n\n"),
    pages: null,
    pageTexts: null,
    scanned: false,
    scannedPages: []
  }
}
