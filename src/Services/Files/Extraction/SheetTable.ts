/**
 * One sheet as text a model can address, built only from the cells that exist: a sheet that
 * declares `A1:XFD1048576` but holds three cells costs three cells, never the declared range.
 */
export interface SheetCell {
  /** Zero-based. */
  readonly row: number
  readonly column: number
  /** The value as shown (formatted text); empty cells are left out by the caller or here. */
  readonly text: string
}

/** Above this many table cells (used rows x used columns) a sparse sheet is listed cell by cell. */
const maxTableCells = 250_000

/** `A`, `B`, ..., `Z`, `AA`, ... for a zero-based column. */
export const columnName = (column: number): string => {
  let name = ""
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

const shown = (text: string) => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").trim()

/**
 * The sheet's text and its used range (`A1:D4`): a header of the used column letters, then each
 * used row led by its number, so "D4" in a formula or a question points at a visible cell. A
 * sparse sheet whose table would be huge is listed as `D4: value` lines instead.
 */
export const sheetTable = (input: ReadonlyArray<SheetCell>): { readonly text: string; readonly range: string | undefined } => {
  const cells = input.filter((cell) => shown(cell.text) !== "")
  if (cells.length === 0) return { text: "(empty sheet)", range: undefined }
  const rows = [...new Set(cells.map((c) => c.row))].sort((a, b) => a - b)
  const columns = [...new Set(cells.map((c) => c.column))].sort((a, b) => a - b)
  const range = `${columnName(columns[0]!)}${rows[0]! + 1}:${columnName(columns.at(-1)!)}${rows.at(-1)! + 1}`
  if (rows.length * columns.length > maxTableCells) {
    const sorted = [...cells].sort((a, b) => a.row - b.row || a.column - b.column)
    return { text: sorted.map((c) => `${columnName(c.column)}${c.row + 1}: ${shown(c.text)}`).join("\n"), range }
  }
  const at = new Map(columns.map((column, i) => [column, i]))
  const byRow = new Map<number, Array<string>>(rows.map((row) => [row, columns.map(() => "")]))
  for (const cell of cells) byRow.get(cell.row)![at.get(cell.column)!] = shown(cell.text)
  const lines = [`| | ${columns.map(columnName).join(" | ")} |`]
  for (const row of rows) lines.push(`| ${row + 1} | ${byRow.get(row)!.join(" | ")} |`)
  return { text: lines.join("\n"), range }
}
